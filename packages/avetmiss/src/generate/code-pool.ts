// The codes a generated file set uses, taken from the reference data its caller gives (the records of
// GET /reference-data/{dataset}, or the service's seed files): the AVETMISS code of every Active
// record, so the generator keeps no code table of its own. What it keeps is how common an answer is,
// by the API word the reference data gives it (most students are not Aboriginal or Torres Strait
// Islander, most results are competency achieved); a word the reference data lacks is not used.
import { isNotStated } from '../mapping/from-nat/field-reader.ts'
import { type CodeTranslator, codeTranslatorFrom, type ReferenceDatasets } from '../mapping/code-translator.ts'
import { type Random, weightedChooser } from './random.ts'

/**
 * How often each answer is given: `words` gives shares by API word, and `rest` a share divided evenly
 * among the other stated codes (0: only the words named). A preference without words is even.
 */
export interface Preference {
  words?: Readonly<Record<string, number>>
  rest?: number
  /** Codes left out (a classification's supplementary codes: inadequately described, at sea, ...). */
  exclude?: (code: string) => boolean
}

/** Every stated code as often as any other. Preferences are told apart by identity: keep them as constants. */
export const EVEN: Preference = {}

export class CodePool {
  readonly dataset: string
  /** The stated AVETMISS codes of the dataset's Active records, and their API words, in the same order. */
  readonly codes: readonly string[]
  readonly words: readonly string[]
  /** The dataset's @-filled "not stated" code, when it has one. */
  readonly notStated: string | undefined
  readonly #translator: CodeTranslator
  readonly #choosers = new Map<Preference, (random: Random) => string>()

  constructor(dataset: string, datasets: ReferenceDatasets, translator: CodeTranslator) {
    const records = datasets[dataset]
    if (!records) throw new Error(`The reference data has no dataset ${dataset}, which the generator needs`)
    const codes: string[] = []
    const words: string[] = []
    let notStated: string | undefined
    for (const record of records) {
      if (record.status !== undefined && record.status !== 'Active') continue
      const code = record.avetmissCode ?? record.code
      if (isNotStated(code)) notStated = code
      else if (!codes.includes(code)) {
        codes.push(code)
        words.push(record.code)
      }
    }
    if (codes.length === 0) throw new Error(`Reference dataset ${dataset} has no Active code to generate with`)
    this.dataset = dataset
    this.codes = codes
    this.words = words
    this.notStated = notStated
    this.#translator = translator
  }

  /** The AVETMISS code of an API word; an error when the reference data lacks the word. */
  codeOf(word: string): string {
    const index = this.words.indexOf(word)
    if (index < 0) throw new Error(`Reference dataset ${this.dataset} has no ${word}, which the generator needs`)
    return this.codes[index]!
  }

  /** A stated code, as common as `preference` says. */
  pick(random: Random, preference: Preference = EVEN): string {
    let chooser = this.#choosers.get(preference)
    if (!chooser) {
      const codes: string[] = []
      const weights: number[] = []
      const others = this.words.filter((word, index) => {
        const code = this.codes[index]!
        return preference.words?.[word] === undefined && !preference.exclude?.(code)
      })
      for (const [index, word] of this.words.entries()) {
        const code = this.codes[index]!
        if (preference.exclude?.(code)) continue
        const share = preference.words?.[word] ?? (preference.words ? (preference.rest ?? 0) / others.length : 1)
        if (share <= 0) continue
        codes.push(code)
        weights.push(share)
      }
      if (codes.length === 0) throw new Error(`No code of reference dataset ${this.dataset} fits the preference`)
      chooser = weightedChooser(codes, weights)
      this.#choosers.set(preference, chooser)
    }
    return chooser(random)
  }

  /**
   * A code of the same shape as the dataset's (as long, digits where its codes are digits) that the
   * translator the mapping uses does not translate, and that is not "not stated".
   */
  untranslatable(random: Random): string {
    const length = this.codes[0]!.length
    const alphabet = this.codes.every((code) => /^\d+$/.test(code)) ? '0123456789' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
    for (let attempt = 0; attempt < 10_000; attempt++) {
      let code = ''
      for (let i = 0; i < length; i++) code += alphabet[random.int(0, alphabet.length - 1)]
      if (this.#translator.toApi(this.dataset, code) === undefined) return code
    }
    throw new Error(`Every ${length}-character code translates in reference dataset ${this.dataset}`)
  }
}

/** A pool per dataset, made when first asked for. */
export class CodePools {
  readonly #datasets: ReferenceDatasets
  readonly #translator: CodeTranslator
  readonly #pools = new Map<string, CodePool>()

  constructor(datasets: ReferenceDatasets) {
    this.#datasets = datasets
    this.#translator = codeTranslatorFrom(datasets)
  }

  of(dataset: string): CodePool {
    let pool = this.#pools.get(dataset)
    if (!pool) {
      pool = new CodePool(dataset, this.#datasets, this.#translator)
      this.#pools.set(dataset, pool)
    }
    return pool
  }
}
