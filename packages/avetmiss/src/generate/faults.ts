// Deliberate faults, planted in the lines of a clean set where each is the one problem it causes: a
// fault the reader finds loses its line, so it goes only where a lost line leaves nothing else wrong
// (an activity outside a program or in a program not completed, a completion, a disability, a prior
// achievement); a fault the mapping finds goes on a line that is still carried. The planted list is
// therefore exactly what readNatEntries and natToResources report, file, line, field and value.
import { formatFieldValue } from '../field-values.ts'
import { natFileName } from '../file-names.ts'
import type { FieldLayout } from '../layout.ts'
import { layoutOf, type NatFileId } from '../layouts/index.ts'
import type { CleanSet } from './clean-set.ts'
import type { CodePools } from './code-pool.ts'
import type { Random } from './random.ts'

export const NAT_FAULT_KINDS = [
  'record-too-long',
  'non-numeric',
  'impossible-date',
  'missing-required',
  'unknown-code',
  'client-not-in-nat00080',
  'duplicate-activity-key',
  'commencing-without-program',
  'implausible-age',
  'credit-with-delivery',
] as const

/**
 * - `record-too-long`: a line with text past the record length (a state's extra columns); no field.
 * - `non-numeric`: a letter O for a zero in a numeric field (`006O` scheduled hours).
 * - `impossible-date`: a date that does not exist (`31062026`).
 * - `missing-required`: a field the layout requires, left blank.
 * - `unknown-code`: a code the reference data does not translate, in a coded field.
 * - `client-not-in-nat00080`: an extra NAT00120 line for a client NAT00080 does not have.
 * - `duplicate-activity-key`: an extra NAT00120 line repeating an earlier line's activity key; no field.
 * - `commencing-without-program`: commencing program identifier 3 on an activity outside any program
 *   (NAT check commencing-without-program).
 * - `implausible-age`: a client born two years before the set's year (NAT check implausible-age).
 * - `credit-with-delivery`: a competent activity's outcome changed to 60, credit transfer, while its
 *   delivery mode says it was delivered (NAT check credit-with-delivery).
 */
export type NatFaultKind = (typeof NAT_FAULT_KINDS)[number]

export interface NatFaultRequest {
  kind: NatFaultKind
  count: number
}

/** The kinds the NAT checks (checkNatSet) find, the line still read and carried: the others are the reader's or the mapping's. */
export const NAT_CHECK_FAULT_KINDS: readonly NatFaultKind[] = [
  'commencing-without-program',
  'implausible-age',
  'credit-with-delivery',
]

/** A fault as planted: the problem the reader, the mapping or a NAT check reports for it. */
export interface PlantedNatFault {
  kind: NatFaultKind
  /** The file's name in the set (`NAT00120.txt`). */
  file: string
  /** 1-based line of the file. */
  line: number
  /** The layout's field name; absent when the whole line is at fault (too long, duplicate). */
  field?: string
  /** The text as planted, trimmed, as the problem's `value` gives it; absent for a duplicate line. */
  value?: string
}

/** How many NAT00120 lines the faults add (the extra lines of an unknown client or a duplicate). */
export function extraActivityLines(requests: readonly NatFaultRequest[]): number {
  return requests
    .filter((request) => request.kind === 'client-not-in-nat00080' || request.kind === 'duplicate-activity-key')
    .reduce((sum, request) => sum + request.count, 0)
}

export function checkFaultRequests(requests: readonly NatFaultRequest[]): void {
  for (const request of requests) {
    if (!(NAT_FAULT_KINDS as readonly string[]).includes(request.kind)) {
      throw new RangeError(`Unknown fault kind ${request.kind}; the kinds are ${NAT_FAULT_KINDS.join(', ')}`)
    }
    if (!Number.isInteger(request.count) || request.count < 0) {
      throw new RangeError(`The count of ${request.kind} faults must be a whole number ≥ 0, not ${request.count}`)
    }
  }
}

/** A line of a file that may take a fault, and the fields on it that can (undefined: the whole line). */
interface Target {
  fileId: NatFileId
  index: number
  fields: readonly (string | undefined)[]
}

/** Where each kind may go: files, which of their lines, which fields. */
interface Place {
  fileId: NatFileId
  lineOk?: (index: number) => boolean
  fields: (line: string) => readonly (string | undefined)[]
}

const fieldOf = (fileId: NatFileId, name: string): FieldLayout => layoutOf(fileId).fields.find((f) => f.name === name)!
const columnsOf = (line: string, field: FieldLayout) => line.slice(field.start - 1, field.start - 1 + field.length)
const isBlank = (line: string, field: FieldLayout) => columnsOf(line, field).trim() === ''
function withColumns(line: string, field: FieldLayout, text: string): string {
  return line.slice(0, field.start - 1) + text + line.slice(field.start - 1 + field.length)
}

const requiredFields = (fileId: NatFileId) =>
  layoutOf(fileId)
    .fields.filter((field) => !field.blankAllowed)
    .map((field) => field.name)

/** The coded fields an unknown code may go in, with the dataset the mapping translates each through. */
const CODED: Partial<Record<NatFileId, Readonly<Record<string, string>>>> = {
  NAT00080: {
    gender: 'gender',
    indigenousStatusIdentifier: 'indigenous-status',
    highestSchoolLevelCompletedIdentifier: 'highest-school-level',
    labourForceStatusIdentifier: 'labour-force-status',
    languageIdentifier: 'language',
    countryIdentifier: 'country',
  },
  NAT00120: { outcomeIdentifierNational: 'outcome-national', studyReasonIdentifier: 'study-reason' },
  NAT00090: { disabilityTypeIdentifier: 'disability-type' },
  NAT00100: { priorEducationalAchievementIdentifier: 'prior-educational-achievement' },
}

export class FaultPlanter {
  readonly #random: Random
  readonly #codes: CodePools
  readonly #set: CleanSet
  /** Lines taken by a fault, or kept as the original of a duplicate: `${fileId}:${index}`. */
  readonly #used = new Set<string>()
  /** In-place faults by file and index; the line number is known once extra lines are placed. */
  readonly #inPlace: { fault: PlantedNatFault; fileId: NatFileId; index: number }[] = []
  /** Extra NAT00120 lines, each inserted before the clean line at `position` (after the last at n). */
  readonly #extra: { fault: PlantedNatFault; position: number; line: string }[] = []
  #phantoms = 0

  constructor(random: Random, codes: CodePools, set: CleanSet) {
    this.#random = random
    this.#codes = codes
    this.#set = set
  }

  #lines(fileId: NatFileId): string[] {
    return this.#set.lines[fileId] ?? []
  }

  /** Plants the faults asked for, extra lines first (their originals are then kept from other faults). */
  plant(requests: readonly NatFaultRequest[]): void {
    const addsLines = (request: NatFaultRequest) => extraActivityLines([request]) > 0
    const extraFirst = [...requests.filter(addsLines), ...requests.filter((request) => !addsLines(request))]
    for (const { kind, count } of extraFirst) {
      for (let i = 0; i < count; i++) this.#plantOne(kind)
    }
  }

  #plantOne(kind: NatFaultKind): void {
    switch (kind) {
      case 'client-not-in-nat00080':
        this.#unknownClient()
        break
      case 'duplicate-activity-key':
        this.#duplicate()
        break
      case 'record-too-long':
        this.#inPlaceFault(
          kind,
          this.#losablePlaces(() => [undefined]),
          (line) => {
            const tail = this.#random.pick(['VIC', '0040', 'Y', 'C1234', '2026N'])
            return { line: line + tail, value: tail }
          },
        )
        break
      case 'non-numeric':
        this.#inPlaceFault(
          kind,
          [
            {
              fileId: 'NAT00120',
              lineOk: (index) => this.#set.activityCanBeLost[index] === 1,
              fields: (line) =>
                layoutOf('NAT00120')
                  .fields.filter((field) => field.type === 'numeric' && !isBlank(line, field))
                  .map((field) => field.name),
            },
          ],
          (line, name) => {
            const field = fieldOf('NAT00120', name!)
            const digits = columnsOf(line, field)
            const at = digits.lastIndexOf('0') >= 0 ? digits.lastIndexOf('0') : digits.length - 1
            const text = `${digits.slice(0, at)}O${digits.slice(at + 1)}`
            return { line: withColumns(line, field, text), value: text.trim() }
          },
        )
        break
      case 'impossible-date':
        this.#inPlaceFault(
          kind,
          [
            {
              fileId: 'NAT00120',
              lineOk: (index) => this.#set.activityCanBeLost[index] === 1,
              fields: () => ['activityStartDate', 'activityEndDate'],
            },
            {
              fileId: 'NAT00130',
              fields: (line) =>
                isBlank(line, fieldOf('NAT00130', 'parchmentIssueDate'))
                  ? ['dateProgramCompleted']
                  : ['dateProgramCompleted', 'parchmentIssueDate'],
            },
          ],
          (line, name, fileId) => {
            const field = fieldOf(fileId, name!)
            const year = columnsOf(line, field).slice(4)
            const leap = Number(year) % 4 === 0 && (Number(year) % 100 !== 0 || Number(year) % 400 === 0)
            const text = `${this.#random.pick(['3104', '3106', '3109', '3111', '3002', ...(leap ? [] : ['2902'])])}${year}`
            return { line: withColumns(line, field, text), value: text }
          },
        )
        break
      case 'missing-required':
        this.#inPlaceFault(kind, this.#losablePlaces(requiredFields), (line, name, fileId) => {
          const field = fieldOf(fileId, name!)
          return { line: withColumns(line, field, ' '.repeat(field.length)), value: '' }
        })
        break
      case 'commencing-without-program': {
        const program = fieldOf('NAT00120', 'programIdentifier')
        const commencing = fieldOf('NAT00120', 'commencingProgramIdentifier')
        this.#inPlaceFault(
          kind,
          [
            {
              fileId: 'NAT00120',
              fields: (line) =>
                isBlank(line, program) && columnsOf(line, commencing) === '8' ? [commencing.name] : [],
            },
          ],
          (line) => ({ line: withColumns(line, commencing, '3'), value: '3' }),
        )
        break
      }
      case 'implausible-age': {
        const birth = fieldOf('NAT00080', 'dateOfBirth')
        const client = fieldOf('NAT00080', 'clientIdentifier')
        const activity = this.#lines('NAT00120')
        const start = fieldOf('NAT00120', 'activityStartDate')
        const year = Number(columnsOf(activity[0] ?? '', start).slice(4)) || new Date().getUTCFullYear()
        const active = new Set(activity.map((line) => columnsOf(line, fieldOf('NAT00120', 'clientIdentifier')).trim()))
        this.#inPlaceFault(
          kind,
          [{ fileId: 'NAT00080', fields: (line) => (active.has(columnsOf(line, client).trim()) ? [birth.name] : []) }],
          (line) => ({ line: withColumns(line, birth, `0101${year - 2}`), value: `${year - 2}-01-01` }),
        )
        break
      }
      case 'credit-with-delivery': {
        const outcome = fieldOf('NAT00120', 'outcomeIdentifierNational')
        const mode = fieldOf('NAT00120', 'deliveryModeIdentifier')
        this.#inPlaceFault(
          kind,
          [
            {
              fileId: 'NAT00120',
              fields: (line) =>
                columnsOf(line, outcome) === '20' && columnsOf(line, mode) !== 'NNN' ? [mode.name] : [],
            },
          ],
          (line) => ({ line: withColumns(line, outcome, '60'), value: columnsOf(line, mode).trim() }),
        )
        break
      }
      case 'unknown-code':
        this.#inPlaceFault(
          kind,
          (Object.keys(CODED) as NatFileId[]).map((fileId) => ({ fileId, fields: () => Object.keys(CODED[fileId]!) })),
          (line, name, fileId) => {
            const field = fieldOf(fileId, name!)
            const code = this.#codes.of(CODED[fileId]![name!]!).untranslatable(this.#random)
            const text = formatFieldValue(field, code)
            if (!text.ok) throw new Error(`An unknown code does not fit ${fileId} ${name}: ${text.message}`)
            return { line: withColumns(line, field, text.value), value: code }
          },
        )
        break
    }
  }

  /** The lines a reader fault may lose without another problem, with the fields `fieldsOf` gives. */
  #losablePlaces(fieldsOf: (fileId: NatFileId) => readonly (string | undefined)[]): Place[] {
    return (['NAT00120', 'NAT00130', 'NAT00090', 'NAT00100'] as const).map((fileId) => ({
      fileId,
      lineOk: fileId === 'NAT00120' ? (index: number) => this.#set.activityCanBeLost[index] === 1 : undefined,
      fields: () => fieldsOf(fileId),
    }))
  }

  /** Chooses a line not yet used among the places, and one of its fields. */
  #target(kind: NatFaultKind, places: readonly Place[]): Target {
    // Each file that has lines as likely as another, so that a few faults still land in several files.
    const sizes = places.map((place) => Math.min(1, this.#lines(place.fileId).length))
    const usable = (place: Place, index: number): Target | undefined => {
      if (this.#used.has(`${place.fileId}:${index}`) || (place.lineOk && !place.lineOk(index))) return undefined
      const fields = place.fields(this.#lines(place.fileId)[index]!)
      return fields.length > 0 ? { fileId: place.fileId, index, fields } : undefined
    }
    if (sizes.some((size) => size > 0)) {
      for (let attempt = 0; attempt < 200; attempt++) {
        const place = this.#random.weighted(places, sizes)
        const found = usable(place, this.#random.int(0, this.#lines(place.fileId).length - 1))
        if (found) return found
      }
    }
    // Few lines left that can take it: look at every one.
    const all: Target[] = []
    for (const place of places) {
      for (let index = 0; index < this.#lines(place.fileId).length; index++) {
        const found = usable(place, index)
        if (found) all.push(found)
      }
    }
    if (all.length === 0) {
      throw new RangeError(
        `No line is left that can take another ${kind} fault (${places.map((place) => place.fileId).join(', ')}): generate more activities or ask for fewer faults`,
      )
    }
    return this.#random.pick(all)
  }

  #inPlaceFault(
    kind: NatFaultKind,
    places: readonly Place[],
    change: (line: string, field: string | undefined, fileId: NatFileId) => { line: string; value: string },
  ): void {
    const target = this.#target(kind, places)
    const field = this.#random.pick(target.fields)
    const lines = this.#lines(target.fileId)
    const changed = change(lines[target.index]!, field, target.fileId)
    lines[target.index] = changed.line
    this.#used.add(`${target.fileId}:${target.index}`)
    const fault: PlantedNatFault = { kind, file: natFileName(target.fileId), line: target.index + 1 }
    if (field !== undefined) fault.field = field
    fault.value = changed.value
    this.#inPlace.push({ fault, fileId: target.fileId, index: target.index })
  }

  /** A copy of an activity line for a client after the last one in NAT00080, anywhere in the file. */
  #unknownClient(): void {
    const lines = this.#lines('NAT00120')
    const field = fieldOf('NAT00120', 'clientIdentifier')
    const client = this.#set.nextClientIdentifier(this.#phantoms++)
    const line = withColumns(lines[this.#random.int(0, lines.length - 1)]!, field, client.padEnd(field.length))
    this.#extra.push({
      fault: {
        kind: 'client-not-in-nat00080',
        file: natFileName('NAT00120'),
        line: 0,
        field: field.name,
        value: client,
      },
      position: this.#random.int(0, lines.length),
      line,
    })
  }

  /** An exact copy of an activity line, somewhere after it: the same activity key twice. */
  #duplicate(): void {
    const lines = this.#lines('NAT00120')
    const original = this.#target('duplicate-activity-key', [{ fileId: 'NAT00120', fields: () => [undefined] }])
    this.#used.add(`NAT00120:${original.index}`)
    this.#extra.push({
      fault: { kind: 'duplicate-activity-key', file: natFileName('NAT00120'), line: 0 },
      position: this.#random.int(original.index + 1, lines.length),
      line: lines[original.index]!,
    })
  }

  /**
   * Puts the extra lines in NAT00120 and numbers every fault by its final line. Returns the faults in
   * file and line order.
   */
  finish(): PlantedNatFault[] {
    const clean = this.#lines('NAT00120')
    const extras = this.#extra.map((extra, order) => ({ ...extra, order }))
    extras.sort((a, b) => a.position - b.position || a.order - b.order)
    const activityFaults = new Map(
      this.#inPlace.filter((planted) => planted.fileId === 'NAT00120').map((planted) => [planted.index, planted.fault]),
    )
    if (extras.length > 0 || activityFaults.size > 0) {
      const merged: string[] = []
      let next = 0
      for (let index = 0; index <= clean.length; index++) {
        while (next < extras.length && extras[next]!.position === index) {
          const extra = extras[next++]!
          merged.push(extra.line)
          extra.fault.line = merged.length
        }
        if (index === clean.length) break
        merged.push(clean[index]!)
        const fault = activityFaults.get(index)
        if (fault) fault.line = merged.length
      }
      this.#set.lines.NAT00120 = merged
    }
    const faults = [...this.#inPlace.map((planted) => planted.fault), ...extras.map((extra) => extra.fault)]
    return faults.sort((a, b) => (a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.line - b.line))
  }
}
