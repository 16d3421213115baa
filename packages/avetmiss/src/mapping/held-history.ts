// Continuing students: a NAT file set carries one collection period, the service the whole history.
// An enrolment already held (a program enrolment a student continues in next year, a unit reported
// as not yet started last quarter and commenced since) is derived again from this period's lines
// alone, and its new version would leave out states already submitted, which the service refuses
// (BRTS01450: every upload carries the complete lifecycle history). Before upload, each mapped
// enrolment that is held is merged with its held version: the held states are kept, the period's
// states are added where they move the enrolment on, and a program enrolment keeps the commencement
// it was first reported with. docs/decisions.md, "NAT imports year after year (issue 31)".
import type { MappedRecord } from './mapped-record.ts'
import type { RecordOrigin } from './origin.ts'
import type { LifecycleStateRecord, ProgramEnrolmentRecord, SubjectEnrolmentRecord } from './resource-records.ts'

/** The resource types whose held history an import carries forward. */
export const HISTORY_TYPES = ['ProgramEnrolment', 'SubjectEnrolment'] as const
export type HistoryType = (typeof HISTORY_TYPES)[number]

/** A held enrolment's body, as the service returns it (only the fields the merge reads are typed). */
export type HeldEnrolment = Partial<ProgramEnrolmentRecord & SubjectEnrolmentRecord> & Record<string, unknown>

/** The lifecycle and, for each state of it, the index it had in the mapped record (undefined: a held state). */
interface MergedLifecycle {
  lifecycle: LifecycleStateRecord[]
  from: (number | undefined)[]
}

const sameState = (a: LifecycleStateRecord, b: LifecycleStateRecord) =>
  a.studentStatus === b.studentStatus && a.studentActivityDate === b.studentActivityDate

/**
 * The held lifecycle, every state kept as held, with each derived state added when it moves the
 * enrolment on: not already held, not the state already in force on its date (a continuing student's
 * program enrolment stays Commenced from last year; a second Commenced would say nothing new), and
 * not a Registered after any other state (Registered is only ever the first: BRTS01460). A student who
 * withdrew (Cancelled) or deferred and returns gets the new Commenced. Sorted by date; on the same date
 * held states come first.
 */
export function mergeLifecycles(
  held: readonly LifecycleStateRecord[],
  derived: readonly LifecycleStateRecord[],
): MergedLifecycle {
  const entries: { state: LifecycleStateRecord; from: number | undefined }[] = held.map((state) => ({
    state: { ...state },
    from: undefined,
  }))
  derived.forEach((state, index) => {
    const same = entries.find((entry) => sameState(entry.state, state))
    if (same) {
      // The derived one is the line's: its place in the files, and its reason when it gives one.
      same.from ??= index
      return
    }
    const before = entries.filter((entry) => entry.state.studentActivityDate <= state.studentActivityDate)
    const inForce = before.reduce<LifecycleStateRecord | undefined>(
      (latest, entry) =>
        !latest || entry.state.studentActivityDate >= latest.studentActivityDate ? entry.state : latest,
      undefined,
    )
    if (inForce?.studentStatus === state.studentStatus) return
    if (state.studentStatus === 'Registered' && before.length > 0) return
    entries.push({ state: { ...state }, from: index })
  })
  // Array.prototype.sort is stable: held states keep their order, and come before new ones on a date.
  entries.sort((a, b) =>
    a.state.studentActivityDate < b.state.studentActivityDate
      ? -1
      : a.state.studentActivityDate > b.state.studentActivityDate
        ? 1
        : 0,
  )
  return { lifecycle: entries.map((entry) => entry.state), from: entries.map((entry) => entry.from) }
}

/** A mapped enrolment merged with its held version, and the origin its fields now have. */
export interface MergedEnrolment<R> {
  record: R
  origin: RecordOrigin
  /** Whether anything of the held version was carried forward (false: the mapped record as it was). */
  changed: boolean
}

/**
 * One mapped enrolment merged with its held version:
 * - the lifecycle: `mergeLifecycles`;
 * - a program enrolment held with an earlier `commencementDate` keeps it, and with it the answers of
 *   its first activity (`commencingProgram`, `fundingSourceNational`, `studyReason`): the mapping takes
 *   them from the earliest line, and last year's earliest line is not in this year's files;
 * - a program completion, a training contract and an apprenticeship client identifier held and not in
 *   these files are kept (a completion once reported does not go away).
 * Everything else is this period's. The origin loses the places of what came from the held version
 * (there is no line for it in these files), and the lifecycle's places follow their states.
 */
export function mergeHeldEnrolment<R extends ProgramEnrolmentRecord | SubjectEnrolmentRecord>(
  resourceType: HistoryType,
  record: R,
  origin: RecordOrigin,
  held: HeldEnrolment,
): MergedEnrolment<R> {
  const merged = { ...record } as R & Record<string, unknown>
  const fields: Record<string, RecordOrigin['fields'][string]> = { ...origin.fields }
  const fromHeld = new Set<string>()
  const heldLifecycle = Array.isArray(held.lifecycle) ? held.lifecycle : []
  const { lifecycle, from } = mergeLifecycles(heldLifecycle, record.lifecycle)
  const lifecycleChanged =
    lifecycle.length !== record.lifecycle.length || from.some((index, position) => index !== position)
  if (lifecycleChanged) {
    merged.lifecycle = lifecycle
    for (const path of Object.keys(fields)) if (path.startsWith('lifecycle[')) delete fields[path]
    from.forEach((index, position) => {
      if (index === undefined) return
      for (const [path, source] of Object.entries(origin.fields)) {
        const prefix = `lifecycle[${index}]`
        if (path === prefix || path.startsWith(`${prefix}.`))
          fields[`lifecycle[${position}]${path.slice(prefix.length)}`] = source
      }
    })
  }

  if (resourceType === 'ProgramEnrolment') {
    const program = merged as ProgramEnrolmentRecord & Record<string, unknown>
    if (typeof held.commencementDate === 'string' && held.commencementDate < program.commencementDate) {
      program.commencementDate = held.commencementDate
      fromHeld.add('commencementDate')
      for (const field of ['commencingProgram', 'fundingSourceNational', 'studyReason'] as const) {
        if (typeof held[field] === 'string') program[field] = held[field]
        else delete program[field]
        fromHeld.add(field)
      }
    }
    for (const field of ['programCompletion', 'trainingContractIdentifier', 'apprenticeshipClientIdentifier'] as const)
      if (program[field] === undefined && held[field] !== undefined) {
        ;(program as Record<string, unknown>)[field] = held[field]
        fromHeld.add(field)
      }
  }

  for (const path of Object.keys(fields))
    if ([...fromHeld].some((field) => path === field || path.startsWith(`${field}.`))) delete fields[path]
  const changed = lifecycleChanged || fromHeld.size > 0
  return changed
    ? { record: merged, origin: { lines: origin.lines, fields: Object.freeze(fields) }, changed }
    : { record, origin, changed }
}

/**
 * Each mapped program and subject enrolment that `held` has (by UID) merged with its held version
 * (`mergeHeldEnrolment`); every other record as it was. Answers the records and how many changed.
 */
export function carryForwardHeld(
  records: readonly MappedRecord[],
  held: ReadonlyMap<string, HeldEnrolment>,
): { records: MappedRecord[]; carried: number } {
  let carried = 0
  const out = records.map((mapped) => {
    if (mapped.resourceType !== 'ProgramEnrolment' && mapped.resourceType !== 'SubjectEnrolment') return mapped
    const heldVersion = held.get(`${mapped.resourceType} ${mapped.uid}`)
    if (!heldVersion) return mapped
    const merged = mergeHeldEnrolment(mapped.resourceType, mapped.record, mapped.origin, heldVersion)
    if (!merged.changed) return mapped
    carried++
    return { ...mapped, record: merged.record, origin: merged.origin } as MappedRecord
  })
  return { records: out, carried }
}
