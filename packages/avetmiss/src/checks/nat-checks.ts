// Checks across the lines of a NAT file set that NCVER's AVETMISS validation software makes and the
// mapping does not: contradictions between a client's flags and the tables they announce, activity
// answers that contradict each other, ages, hours, and records nothing refers to. Run on the records
// read, before anything is uploaded; each finding names its check, its level, its file, line, field and
// value, the record in the file's identifiers, and what to change in the SMS.
import { natRecordIdentity } from '../identity.ts'
import { natFieldLabel } from '../mapping/origin.ts'
import type { NatProblem } from '../problems.ts'
import type { NatUnreadable } from '../read-file-set.ts'
import type { NatRecord, NatRecordSet } from '../records.ts'

export type NatCheckLevel = 'Error' | 'Warning'

/** One check: its name, level and what it is about, as the package README lists them. */
export interface NatCheck {
  readonly name: string
  readonly level: NatCheckLevel
  readonly title: string
}

/** A finding of a check: a problem at a file, line and field, with the check's name and level. */
export interface NatCheckFinding extends NatProblem {
  check: string
  level: NatCheckLevel
}

export interface NatCheckOptions {
  /** The day the set is imported (YYYY-MM-DD): a continuing activity may not have ended before it. Default today. */
  asOf?: string
}

export const NAT_CHECKS = {
  disabilityWithoutFlag: {
    name: 'disability-without-flag',
    level: 'Error',
    title: 'A NAT00090 line is for a client whose disability flag is not Y',
  },
  flagWithoutDisability: {
    name: 'flag-without-disability',
    level: 'Error',
    title: 'A client whose disability flag is Y has no NAT00090 line',
  },
  achievementWithoutFlag: {
    name: 'achievement-without-flag',
    level: 'Error',
    title: 'A NAT00100 line is for a client whose prior educational achievement flag is not Y',
  },
  flagWithoutAchievement: {
    name: 'flag-without-achievement',
    level: 'Error',
    title: 'A client whose prior educational achievement flag is Y has no NAT00100 line',
  },
  commencingWithoutProgram: {
    name: 'commencing-without-program',
    level: 'Error',
    title: 'An activity with a blank program identifier says commencing (3) or continuing (4) program',
  },
  continuingAlreadyEnded: {
    name: 'continuing-already-ended',
    level: 'Warning',
    title: 'An activity with outcome 70 (continuing) has an end date before the day of import',
  },
  creditWithDelivery: {
    name: 'credit-with-delivery',
    level: 'Error',
    title:
      'An RPL or credit transfer outcome (51, 52, 60) has a delivery mode other than NNN, or a predominant mode other than N',
  },
  implausibleAge: {
    name: 'implausible-age',
    level: 'Error',
    title: 'A client is younger than 10 at the start of an activity',
  },
  atSchoolAge: {
    name: 'at-school-age',
    level: 'Warning',
    title: 'A client whose at school flag is Y is 25 or older at the start of an activity',
  },
  vetInSchoolsWithoutSchoolType: {
    name: 'vet-in-schools-without-school-type',
    level: 'Error',
    title: 'An activity whose VET in schools flag is Y has no school type',
  },
  specificFundingWithoutSpecificPurpose: {
    name: 'specific-funding-without-specific-purpose',
    level: 'Warning',
    title:
      'A specific funding identifier on an activity whose national funding source is not a specific purpose program (13 or 15)',
  },
  scheduledHoursFarFromNominal: {
    name: 'scheduled-hours-far-from-nominal',
    level: 'Warning',
    title: "An activity's scheduled hours are more than twice the subject's nominal hours",
  },
  orphanClient: { name: 'orphan-client', level: 'Warning', title: 'A client has no activity in NAT00120' },
  orphanSubject: { name: 'orphan-subject', level: 'Warning', title: 'A subject has no activity in NAT00120' },
  orphanLocation: {
    name: 'orphan-location',
    level: 'Warning',
    title: 'A delivery location has no activity in NAT00120',
  },
  orphanProgram: {
    name: 'orphan-program',
    level: 'Warning',
    title: 'A program has no activity in NAT00120 and no completion in NAT00130',
  },
} as const satisfies Record<string, NatCheck>

const COMMENCING_OR_CONTINUING = new Set(['3', '4'])
/** Funding source national 13 (Commonwealth) and 15 (state) specific purpose programs: what a specific funding identifier names. */
const SPECIFIC_PURPOSE = new Set(['13', '15'])
const CREDIT_OUTCOMES = new Set(['51', '52', '60'])
const CONTINUING = '70'
const YOUNGEST = 10
const AT_SCHOOL_UNTIL = 25

const todayIso = () => new Date().toISOString().slice(0, 10)

/** Whole years from a YYYY-MM-DD birth date to a YYYY-MM-DD day. */
function ageOn(birth: string, day: string): number {
  const years = Number(day.slice(0, 4)) - Number(birth.slice(0, 4))
  return day.slice(5) < birth.slice(5) ? years - 1 : years
}

const isDate = (value: string | undefined): value is string => value !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(value)

/**
 * Every finding of every check, in file and line order. A line the reader could not read (`unreadable`,
 * as `readNatEntries` gives it) counts as there for what refers to it: its own problems say what is
 * wrong, and a check does not blame its absence on another line.
 */
export function checkNatSet(
  set: { records: NatRecordSet; unreadable?: NatUnreadable },
  options: NatCheckOptions = {},
): NatCheckFinding[] {
  const checker = new NatSetChecker(set, options)
  checker.addClients(set.records)
  return checker.findings()
}

type Used = { subjects: Set<string>; locations: Set<string>; programs: Set<string> }

/**
 * checkNatSet a run of clients at a time, for an import that never holds the whole set's client
 * lines (issue 31 item 9): every check but the orphans of the small files is about one client's
 * lines (its NAT00080, NAT00090, NAT00100 and NAT00120 lines), so `addClients` checks the lines of
 * whole clients (every line of each client it is given: natToResourceChunks's chunks), keeping of them
 * only the identifiers the orphan checks need; `findings` adds those and sorts, giving what checkNatSet
 * gives for the whole set. `set.records` needs the small files (NAT00020, NAT00030, NAT00030A, NAT00060).
 */
export class NatSetChecker {
  readonly #set: { records: NatRecordSet; unreadable?: NatUnreadable }
  readonly #asOf: string
  readonly #findings: NatCheckFinding[] = []
  /** Subjects, locations and programs the activities and completions (and the unreadable lines) name. */
  readonly #used: Used = { subjects: new Set(), locations: new Set(), programs: new Set() }
  /** Clients the unreadable lines of NAT00090, NAT00100 and NAT00120 name. */
  readonly #unreadClients: Record<'NAT00090' | 'NAT00100' | 'NAT00120', Set<string | undefined>>
  readonly #subjects: Map<string | undefined, NatRecord<'NAT00060'>>

  constructor(set: { records: NatRecordSet; unreadable?: NatUnreadable }, options: NatCheckOptions = {}) {
    this.#set = set
    this.#asOf = options.asOf ?? todayIso()
    const ids = (fileId: 'NAT00090' | 'NAT00100' | 'NAT00120') =>
      new Set(this.#unread(fileId).map((row) => row.values.clientIdentifier))
    this.#unreadClients = { NAT00090: ids('NAT00090'), NAT00100: ids('NAT00100'), NAT00120: ids('NAT00120') }
    this.#subjects = new Map(set.records.NAT00060.map((row) => [row.values.subjectIdentifier, row]))
    for (const row of this.#unread('NAT00130'))
      if (row.values.programIdentifier) this.#used.programs.add(row.values.programIdentifier)
    for (const { values: v } of this.#unread('NAT00120')) {
      if (v.subjectIdentifier) this.#used.subjects.add(v.subjectIdentifier)
      if (v.deliveryLocationIdentifier) this.#used.locations.add(v.deliveryLocationIdentifier)
      if (v.programIdentifier) this.#used.programs.add(v.programIdentifier)
    }
  }

  #unread<F extends keyof NatRecordSet>(fileId: F): NatRecordSet[F] {
    return (this.#set.unreadable?.lines[fileId] ?? []) as NatRecordSet[F]
  }

  /**
   * Whether what refers to this file cannot be judged: the file was not read, lines of it were not even
   * kept as unreadable, or an unreadable line of it lost the identifier (`key`) that says whose it is.
   */
  #unknowable(fileId: keyof NatRecordSet, key: string): boolean {
    const unreadable = this.#set.unreadable
    return (
      (unreadable?.omitted[fileId] ?? 0) > 0 ||
      (unreadable?.files.includes(fileId) ?? false) ||
      (this.#unread(fileId) as readonly NatRecord[]).some(
        (row) => (row.values as Record<string, string | undefined>)[key] === undefined,
      )
    )
  }

  #add(check: NatCheck, row: NatRecord, field: string | undefined, message: string, action: string): void {
    const values = row.values as Record<string, string | undefined>
    const value = field === undefined ? undefined : values[field]
    const record = natRecordIdentity(row.fileId, values)
    this.#findings.push({
      check: check.name,
      level: check.level,
      file: row.file,
      line: row.line,
      ...(field === undefined ? {} : { field }),
      ...(value === undefined ? {} : { value }),
      message,
      ...(record === undefined ? {} : { record }),
      correctiveAction: action,
    })
  }

  /**
   * Hands the chunks on, each checked (addClients) as it goes: what an import maps, checked on the way
   * (`checker.checking(read.clientChunks(lines))` into mapClientChunks).
   */
  *checking(chunks: Iterable<NatRecordSet>): Generator<NatRecordSet, void, void> {
    for (const chunk of chunks) {
      this.addClients(chunk)
      yield chunk
    }
  }

  /** Checks the client files' lines of these clients (`records`' NAT00080, NAT00090, NAT00100, NAT00120 and NAT00130). */
  addClients(records: NatRecordSet): void {
    const add = this.#add.bind(this)
    const asOf = this.#asOf
    const label = (row: NatRecord, field: string) => natFieldLabel(row.fileId, field) ?? field

    const clients = new Map<string, NatRecord<'NAT00080'>>()
    for (const row of records.NAT00080) if (row.values.clientIdentifier) clients.set(row.values.clientIdentifier, row)
    const withDisability = new Set(records.NAT00090.map((row) => row.values.clientIdentifier))
    const withAchievement = new Set(records.NAT00100.map((row) => row.values.clientIdentifier))

    // A client's flags and the tables they announce.
    for (const [table, flagField, linesCheck, flagCheck, what] of [
      [
        records.NAT00090,
        'disabilityFlag',
        NAT_CHECKS.disabilityWithoutFlag,
        NAT_CHECKS.flagWithoutDisability,
        'disability',
      ],
      [
        records.NAT00100,
        'priorEducationalAchievementFlag',
        NAT_CHECKS.achievementWithoutFlag,
        NAT_CHECKS.flagWithoutAchievement,
        'prior educational achievement',
      ],
    ] as const) {
      for (const row of table as readonly NatRecord<'NAT00090' | 'NAT00100'>[]) {
        const client = clients.get(row.values.clientIdentifier ?? '')
        const flag = (client?.values as Record<string, string | undefined> | undefined)?.[flagField]
        if (!client || flag === 'Y') continue
        add(
          linesCheck,
          row,
          'clientIdentifier',
          `${row.fileId} lists a ${what} for client ${row.values.clientIdentifier}, whose ${label(client, flagField)} is ${flag ?? 'blank'} (NAT00080 line ${client.line})`,
          `In the SMS, set the ${label(client, flagField)} of client ${row.values.clientIdentifier} to Y, or remove the client's ${what} records.`,
        )
      }
      const fileId = table === records.NAT00090 ? 'NAT00090' : 'NAT00100'
      const listed = fileId === 'NAT00090' ? withDisability : withAchievement
      if (this.#unknowable(fileId, 'clientIdentifier')) continue
      for (const client of records.NAT00080) {
        const values = client.values as Record<string, string | undefined>
        const id = client.values.clientIdentifier
        if (values[flagField] !== 'Y' || listed.has(id) || this.#unreadClients[fileId].has(id)) continue
        add(
          flagCheck,
          client,
          flagField,
          `${label(client, flagField)} is Y, and ${fileId} has no line for client ${client.values.clientIdentifier}`,
          `In the SMS, record the client's ${what} types, or set the ${label(client, flagField)} to N.`,
        )
      }
    }

    const subjects = this.#subjects
    const firstStart = new Map<string, { start: string; row: NatRecord<'NAT00120'> }>()
    const usedClients = new Set<string>()
    const used = this.#used

    for (const row of records.NAT00120) {
      const v = row.values
      if (v.clientIdentifier) usedClients.add(v.clientIdentifier)
      if (v.subjectIdentifier) used.subjects.add(v.subjectIdentifier)
      if (v.deliveryLocationIdentifier) used.locations.add(v.deliveryLocationIdentifier)
      if (v.programIdentifier) used.programs.add(v.programIdentifier)
      if (!v.programIdentifier && COMMENCING_OR_CONTINUING.has(v.commencingProgramIdentifier ?? '')) {
        add(
          NAT_CHECKS.commencingWithoutProgram,
          row,
          'commencingProgramIdentifier',
          `Commencing program identifier is ${v.commencingProgramIdentifier} (${v.commencingProgramIdentifier === '3' ? 'commencing' : 'continuing'} a program) but the program identifier is blank`,
          'In the SMS, give the activity its program, or set its commencing program identifier to 8 (subject enrolment only).',
        )
      }
      if (v.outcomeIdentifierNational === CONTINUING && isDate(v.activityEndDate) && v.activityEndDate < asOf) {
        add(
          NAT_CHECKS.continuingAlreadyEnded,
          row,
          'activityEndDate',
          `Outcome 70 (continuing) with an activity end date, ${v.activityEndDate}, before ${asOf}`,
          "In the SMS, record the activity's outcome, or move its end date to when it is expected to end.",
        )
      }
      if (CREDIT_OUTCOMES.has(v.outcomeIdentifierNational ?? '')) {
        const mode = v.deliveryModeIdentifier
        const predominant = v.predominantDeliveryMode
        if ((mode !== undefined && mode !== 'NNN') || (predominant !== undefined && predominant !== 'N')) {
          add(
            NAT_CHECKS.creditWithDelivery,
            row,
            mode !== 'NNN' ? 'deliveryModeIdentifier' : 'predominantDeliveryMode',
            `Outcome ${v.outcomeIdentifierNational} (recognition of prior learning or credit transfer) is not delivered, but the delivery mode is ${mode ?? 'blank'} and the predominant delivery mode ${predominant ?? 'blank'}`,
            'In the SMS, set the delivery mode to NNN and the predominant delivery mode to N for the RPL or credit transfer, or correct its outcome.',
          )
        }
      }
      if (v.vetInSchoolsFlag === 'Y' && v.schoolTypeIdentifier === undefined) {
        add(
          NAT_CHECKS.vetInSchoolsWithoutSchoolType,
          row,
          'schoolTypeIdentifier',
          'VET in schools flag is Y and the school type identifier is blank',
          "In the SMS, record the type of the student's school, or set the VET in schools flag to N.",
        )
      }
      if (v.specificFundingIdentifier !== undefined && !SPECIFIC_PURPOSE.has(v.fundingSourceNational ?? '')) {
        add(
          NAT_CHECKS.specificFundingWithoutSpecificPurpose,
          row,
          'specificFundingIdentifier',
          `Specific funding identifier ${v.specificFundingIdentifier} names a specific purpose program, but the funding source - national is ${v.fundingSourceNational ?? 'blank'} (not 13 or 15)`,
          'In the SMS, check the funding source of the activity, or clear its specific funding identifier.',
        )
      }
      const subject = subjects.get(v.subjectIdentifier)
      const nominal = Number(subject?.values.nominalHours ?? 0)
      const scheduled = Number(v.scheduledHours ?? 0)
      if (nominal > 0 && scheduled > 2 * nominal) {
        add(
          NAT_CHECKS.scheduledHoursFarFromNominal,
          row,
          'scheduledHours',
          `Scheduled hours ${scheduled} are more than twice subject ${v.subjectIdentifier}'s nominal hours, ${nominal} (NAT00060 line ${subject!.line})`,
          "In the SMS, check the activity's scheduled hours against the subject's nominal hours.",
        )
      }
      if (v.clientIdentifier && isDate(v.activityStartDate)) {
        const first = firstStart.get(v.clientIdentifier)
        if (!first || v.activityStartDate < first.start)
          firstStart.set(v.clientIdentifier, { start: v.activityStartDate, row })
      }
    }
    for (const row of records.NAT00130)
      if (row.values.programIdentifier) used.programs.add(row.values.programIdentifier)

    // Ages, at each client's first activity.
    for (const [clientIdentifier, { start, row: activity }] of firstStart) {
      const client = clients.get(clientIdentifier)
      const birth = client?.values.dateOfBirth
      if (!client || !isDate(birth)) continue
      const age = ageOn(birth, start)
      if (age < YOUNGEST) {
        add(
          NAT_CHECKS.implausibleAge,
          client,
          'dateOfBirth',
          `Client ${clientIdentifier} would be ${age} at the start of the activity on NAT00120 line ${activity.line} (${start})`,
          "In the SMS, correct the client's date of birth.",
        )
      } else if (age >= AT_SCHOOL_UNTIL && client.values.atSchoolFlag === 'Y') {
        add(
          NAT_CHECKS.atSchoolAge,
          client,
          'atSchoolFlag',
          `At school flag is Y for client ${clientIdentifier}, who is ${age} at the start of the activity on NAT00120 line ${activity.line}`,
          "In the SMS, check the client's at school flag and date of birth.",
        )
      }
    }

    // Clients nothing refers to (their activities are theirs, so among these lines).
    if (this.#unknowable('NAT00120', 'clientIdentifier')) return
    for (const row of records.NAT00080) {
      const id = row.values.clientIdentifier
      if (id === undefined || usedClients.has(id) || this.#unreadClients.NAT00120.has(id)) continue
      add(
        NAT_CHECKS.orphanClient,
        row,
        'clientIdentifier',
        `Client ${id} has no activity in NAT00120`,
        "In the SMS, check that the export covers the client's activity, or leave the client out of the export.",
      )
    }
  }

  /** Every finding of the clients added, with the small files' orphans, in file and line order. */
  findings(): NatCheckFinding[] {
    const { records } = this.#set
    const used = this.#used
    // Records nothing refers to.
    const orphans = [
      [records.NAT00060, 'subjectIdentifier', used.subjects, NAT_CHECKS.orphanSubject, 'subject'],
      [records.NAT00020, 'deliveryLocationIdentifier', used.locations, NAT_CHECKS.orphanLocation, 'delivery location'],
      [records.NAT00030, 'programIdentifier', used.programs, NAT_CHECKS.orphanProgram, 'program'],
      [records.NAT00030A, 'programIdentifier', used.programs, NAT_CHECKS.orphanProgram, 'program'],
    ] as const
    const findings = [...this.#findings]
    const before = this.#findings.length
    for (const [rows, field, usedSet, check, what] of orphans) {
      if (this.#unknowable('NAT00120', field)) continue
      for (const row of rows as readonly NatRecord[]) {
        const id = (row.values as Record<string, string | undefined>)[field]
        if (id === undefined || usedSet.has(id)) continue
        this.#add(
          check,
          row,
          field,
          `${what[0]!.toUpperCase()}${what.slice(1)} ${id} has no activity in NAT00120${what === 'program' ? ' and no completion in NAT00130' : ''}`,
          `In the SMS, check that the export covers the ${what}'s activity, or leave the ${what} out of the export.`,
        )
      }
    }
    findings.push(...this.#findings.splice(before))
    return findings.sort((a, b) => (a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.line - b.line))
  }
}
