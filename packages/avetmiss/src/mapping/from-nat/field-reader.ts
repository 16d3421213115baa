// Reads one NAT record's values as API values (text, codes, flags, hours, dates), recording for each
// value that is carried the API field it went to, and reporting each value that cannot be carried.
import { NOT_STATED_DATE } from '../../dates.ts'
import type { NatFieldName, NatFileId } from '../../layouts/index.ts'
import type { NatRecord } from '../../records.ts'
import type { OriginBuilder } from '../origin.ts'
import { natRecordIdentity } from '../../identity.ts'
import { type ImportContext, labelOf, report } from './context.ts'

/** `/^\d{4}$/` as `4 digits`; any other shape as its pattern. */
function shapeInWords(shape: RegExp): string {
  const digits = /^\^\\d\{(\d+)\}\$$/.exec(shape.source)?.[1]
  return digits ? `${digits} digits` : shape.source
}

/** AVETMISS writes "not stated" as a field filled with @ (`@`, `@@`, `@@@@`, `@@@@@@@@`). */
export const isNotStated = (value: string) => /^@+$/.test(value)

export class NatFieldReader<F extends NatFileId> {
  readonly #context: ImportContext
  readonly #origin: OriginBuilder
  readonly source: NatRecord<F>

  constructor(context: ImportContext, source: NatRecord<F>, origin: OriginBuilder) {
    this.#context = context
    this.source = source
    this.#origin = origin
  }

  /** The field's value as read (trimmed), or undefined when blank. Records no origin. */
  raw(field: NatFieldName<F>): string | undefined {
    return (this.source.values as Record<string, string | undefined>)[field]
  }

  /** Records that `path` came from `field` of this line. */
  from(path: string, field: NatFieldName<F>): void {
    this.#origin.field(path, this.source, field)
  }

  problem(field: NatFieldName<F> | undefined, message: string, correctiveAction?: string): void {
    report(this.#context, this.source, field, message, correctiveAction)
  }

  /** `In the SMS, set <label> of <record> to ...`: the start of a corrective action for a field of this line. */
  #change(field: NatFieldName<F>): string {
    const identity = natRecordIdentity(this.source.fileId, this.source.values as Record<string, string | undefined>)
    return `In the SMS, set ${labelOf(this.source.fileId, field)}${identity ? ` of ${identity}` : ''}`
  }

  #codeAction(field: NatFieldName<F>, dataset: string): string {
    return `${this.#change(field)} to a code of the AVETMISS 8.0 list (the service's reference data ${dataset}), and export the NAT files again.`
  }

  #carried<T>(path: string, field: NatFieldName<F>, value: T | undefined): T | undefined {
    if (value !== undefined) this.from(path, field)
    return value
  }

  /** Free text: carried as it is; blank or @-filled ("not stated") is left out. */
  text(field: NatFieldName<F>, path: string): string | undefined {
    const value = this.raw(field)
    return this.#carried(path, field, value === undefined || isNotStated(value) ? undefined : value)
  }

  /**
   * A code of a reference dataset, as the API word its `avetmissCode` translates to. Blank is left
   * out. "Not stated" (@-filled) becomes the dataset's word for it (No_value) where it has one, and is
   * left out where it has none or where that word is itself @-filled (a classification's @@@@). A code
   * the dataset does not translate is a problem, and the field is left out.
   */
  code(field: NatFieldName<F>, dataset: string, path: string): string | undefined {
    const value = this.raw(field)
    if (value === undefined) return undefined
    const word = this.#context.codes.toApi(dataset, value)
    if (isNotStated(value))
      return this.#carried(path, field, word === undefined || isNotStated(word) ? undefined : word)
    if (word === undefined) {
      this.problem(
        field,
        `${labelOf(this.source.fileId, field)} "${value}" has no translation in reference dataset ${dataset}`,
        this.#codeAction(field, dataset),
      )
      return undefined
    }
    return this.#carried(path, field, word)
  }

  /**
   * A code the API requires. Blank, not stated without a word for it, or a code the dataset does not
   * translate is reported as the reason the record (`what`) is not carried.
   */
  requiredCode(field: NatFieldName<F>, dataset: string, path: string, what: string): string | undefined {
    const value = this.raw(field)
    const word = value === undefined ? undefined : this.#context.codes.toApi(dataset, value)
    if (word !== undefined && !isNotStated(word)) return this.#carried(path, field, word)
    this.problem(
      field,
      `${labelOf(this.source.fileId, field)} "${value ?? ''}" has no translation in reference dataset ${dataset}: the API requires it, so the ${what} is not carried`,
      this.#codeAction(field, dataset),
    )
    return undefined
  }

  /** A Y/N flag as a boolean; blank or @ ("not stated") is left out, anything else is a problem. */
  flag(field: NatFieldName<F>, path: string): boolean | undefined {
    const value = this.raw(field)
    if (value === undefined || isNotStated(value)) return undefined
    if (value === 'Y' || value === 'N') return this.#carried(path, field, value === 'Y')
    this.problem(
      field,
      `${labelOf(this.source.fileId, field)} must be Y or N (or @ for not stated), not "${value}"`,
      `${this.#change(field)} to Y or N, and export the NAT files again.`,
    )
    return undefined
  }

  /**
   * A Y/N flag the API requires. Anything but Y or N (@ included) is reported as the reason the
   * record (`what`) is not carried.
   */
  requiredFlag(field: NatFieldName<F>, path: string, what: string): boolean | undefined {
    const value = this.raw(field)
    if (value === 'Y' || value === 'N') return this.#carried(path, field, value === 'Y')
    this.problem(
      field,
      `${labelOf(this.source.fileId, field)} must be Y or N, not "${value ?? ''}": the API requires it, so the ${what} is not carried`,
      `${this.#change(field)} to Y or N, and export the NAT files again.`,
    )
    return undefined
  }

  /** A numeric field as a number (`0060` -> 60); blank is left out. The reader has checked the digits. */
  number(field: NatFieldName<F>, path: string): number | undefined {
    const value = this.raw(field)
    return this.#carried(path, field, value === undefined ? undefined : Number(value))
  }

  /** A date as YYYY-MM-DD; blank or @@@@@@@@ ("not stated") is left out. */
  date(field: NatFieldName<F>, path: string): string | undefined {
    const value = this.raw(field)
    return this.#carried(path, field, value === undefined || value === NOT_STATED_DATE ? undefined : value)
  }

  /** A code string checked only by its shape (a field of education, an ANZSCO code): no dataset holds it. */
  pattern(field: NatFieldName<F>, shape: RegExp, path: string): string | undefined {
    const value = this.raw(field)
    if (value === undefined || isNotStated(value)) return undefined
    if (!shape.test(value)) {
      this.problem(
        field,
        `${labelOf(this.source.fileId, field)} "${value}" is not a code of the expected form (${shapeInWords(shape)})`,
        `${this.#change(field)} to a code of ${shapeInWords(shape)}, and export the NAT files again.`,
      )
      return undefined
    }
    return this.#carried(path, field, value)
  }
}
