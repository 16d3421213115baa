// Read-only view of the held dataset: where one record stands (spec: Record presence in submission;
// Standard workflows 3 starts by confirming stateInSubmission is In submission). Read from the read
// handle: the replica when there is one (docs/decisions.md, "Read routing (issue 21)").
import type { Db, ReadDb, Reader } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import { LRUCache } from 'lru-cache'
import * as holdings from './holdings.repo.ts'
import { indexedActivityDate } from '../reconciliation/index.ts'
import type { HeldState } from './holdings.schemas.ts'
import { FIRST_REPORTING_PERIOD } from '../../domain/reporting-period.ts'

const ENROLMENTS: readonly ResourceType[] = ['ProgramEnrolment', 'SubjectEnrolment']

export async function heldState(
  db: ReadDb,
  actor: Actor,
  resourceType: ResourceType,
  resourceUID: string,
): Promise<HeldState> {
  const [current, numberOfVersions] = await Promise.all([
    holdings.currentVersion(db, actor.rto, resourceType, resourceUID),
    holdings.countVersions(db, actor.rto, resourceType, resourceUID),
  ])
  return {
    resourceType,
    resourceUID: current?.resource_uid ?? resourceUID.toLowerCase(),
    stateInSubmission: current?.state_in_submission ?? 'Not found in submission',
    changeTrackingIdentifier: current?.change_tracking_identifier ?? null,
    submissionDateTime: current ? new Date(current.submitted_at).toISOString() : null,
    studentActivityDate: current ? await activityDateOf(db, actor.rto, current) : null,
    jurisdiction: (current?.jurisdiction ?? null) as HeldState['jurisdiction'],
    voidedReason: current?.voided_reason ?? null,
    numberOfVersions,
  }
}

/**
 * The studentActivityDate reconciliation searches the record by (docs/decisions.md, "Activity dates"):
 * none for a voided record (reconciliation excludes it). Between submit and the batch's reconciledAt,
 * an enrolment already shows the date it will be searched by (its own latest lifecycle date, which
 * indexing does not change); a record other records date shows null until indexing has dated it.
 */
async function activityDateOf(db: ReadDb, rto: string, current: holdings.HeldRecordRow): Promise<string | null> {
  if (current.state_in_submission !== 'In submission') return null
  const indexed = await indexedActivityDate(db, {
    rto,
    token: current.transaction_batch_token,
    type: current.resource_type,
    uid: current.resource_uid,
  })
  if (indexed.reconciled) return indexed.date
  if (!ENROLMENTS.includes(current.resource_type as ResourceType)) return null
  return current.student_activity_date ?? new Date(current.submitted_at).toISOString().slice(0, 10)
}

/** The jurisdictions the RTO has submitted data under, in no particular order. */
export function jurisdictionsSubmittedUnder(db: Db, rto: string): Promise<string[]> {
  return holdings.submittedJurisdictions(db, rto)
}

/** The RTOs that submitted under a jurisdiction, for an operator's view of the whole collection. */
export interface SubmissionsAcrossRtos {
  /** Every RTO that has submitted data under the jurisdiction (any period), in code order. */
  rtos: string[]
  /** Per period asked for, per RTO: when data touching the period was last submitted (ISO 8601); absent: nothing. */
  lastSubmittedAt: Map<number, Map<string, string>>
}

/**
 * Every RTO that has submitted data under the jurisdiction (any period), with its latest submission
 * touching each period asked for. Across RTOs: for operators only (the caller checks who asks).
 */
export async function submissionsAcrossRtos(
  db: Db,
  jurisdiction: string,
  periods: readonly number[],
): Promise<SubmissionsAcrossRtos> {
  const { rtos, marks } = await holdings.submissionsUnderJurisdiction(db, jurisdiction, periods)
  const lastSubmittedAt = new Map(periods.map((period) => [period, new Map<string, string>()]))
  for (const mark of marks)
    lastSubmittedAt.get(mark.reporting_period)?.set(mark.rto_id, new Date(mark.last_submitted_at).toISOString())
  return { rtos, lastSubmittedAt }
}

/**
 * What the operators' collection needs of holdings without reading every mark (issue 32,
 * "Performance"): every RTO that submitted under the jurisdiction, how many have a mark per period,
 * and the marks of one page of RTOs for one period. Across RTOs: for operators only.
 */
export const collectionSubmissions = {
  rtos: (db: Db, jurisdiction: string): Promise<string[]> => holdings.rtosReportingUnder(db, jurisdiction),
  countsByPeriod: (db: Db, jurisdiction: string, periods: readonly number[]): Promise<Map<number, number>> =>
    holdings.submissionCountsUnderJurisdiction(db, jurisdiction, periods),
  async ofRtos(db: Db, jurisdiction: string, period: number, rtos: readonly string[]): Promise<Map<string, string>> {
    const marks = await holdings.marksOfRtos(db, jurisdiction, period, rtos)
    return new Map(marks.map((mark) => [mark.rto_id, new Date(mark.last_submitted_at).toISOString()]))
  },
}

/** Across every RTO: each RTO, jurisdiction and period data was submitted under, periods from `firstPeriod`. */
export async function reportedPeriodsAcrossRtos(
  db: Db,
  firstPeriod: number,
): Promise<{ rto: string; jurisdiction: string; reportingPeriodNumber: number }[]> {
  const rows = await holdings.reportedPeriodsAcrossRtos(db, firstPeriod)
  return rows.map((row) => ({
    rto: row.rto_id,
    jurisdiction: row.jurisdiction,
    reportingPeriodNumber: row.reporting_period,
  }))
}

/** The code of every RTO that holds submitted data, in code order. */
export function rtoCodesHoldingData(db: Db): Promise<string[]> {
  return holdings.rtoCodesHoldingData(db)
}

/** When each of the named RTOs that holds submitted data last submitted (ISO 8601); the others are left out. */
export async function rtosHoldingDataOf(
  db: Db,
  rtos: readonly string[],
): Promise<{ rto: string; lastSubmittedAt: string }[]> {
  if (rtos.length === 0) return []
  const rows = await holdings.rtosHoldingDataOf(db, rtos)
  return rows.map((row) => ({ rto: row.rto_id, lastSubmittedAt: new Date(row.last_submitted_at).toISOString() }))
}

/** When each RTO holding data that an operator's search finds by code, or that is named (found by a client), last submitted. */
export async function rtosHoldingDataMatching(
  db: Db,
  text: string,
  rtos: readonly string[],
): Promise<{ rto: string; lastSubmittedAt: string }[]> {
  const rows = await holdings.rtosHoldingDataMatching(db, text, rtos)
  return rows.map((row) => ({ rto: row.rto_id, lastSubmittedAt: new Date(row.last_submitted_at).toISOString() }))
}

export interface PeriodSubmission {
  jurisdiction: string
  reportingPeriodNumber: number
  /** When data touching the period was last submitted under the jurisdiction, or null. */
  lastSubmittedAt: string | null
  /** Enrolments held (current, not voided) whose latest activity date is in the period. */
  enrolmentsHeld: number
}

/**
 * Enrolments held per jurisdiction and period, per RTO, with the submission marks they were counted
 * after: counting is a pass over every current enrolment of the RTO, which the console's landing page
 * would otherwise pay on every view (issue 30: on the embedded database it held the only connection
 * for up to 0.8 s at 100,000 records). Valid while the marks are the same: the counts change only
 * by a promotion, and every promotion rewrites a mark with a new submission number in its own
 * transaction. The marks are read before the count, so a count is never older than its key.
 */
type HeldCounts = LRUCache<string, { marks: string; rows: holdings.EnrolmentsHeldRow[] }>
/** Per database (a process may hold several: tests), then per RTO. */
const heldCountsOf = new WeakMap<Db, HeldCounts>()

/** What the RTO has submitted, per jurisdiction and reporting period (from FIRST_REPORTING_PERIOD on). */
export async function periodSubmissions(db: Db, actor: Actor): Promise<PeriodSubmission[]> {
  const marks = await holdings.submissionMarks(db, actor.rto, FIRST_REPORTING_PERIOD)
  const key = marks
    .map((m) => `${m.jurisdiction}:${m.reporting_period}:${m.last_submission_seq}`)
    .sort()
    .join(',')
  let heldCounts = heldCountsOf.get(db)
  if (!heldCounts) {
    heldCounts = new LRUCache({ max: 1000 })
    heldCountsOf.set(db, heldCounts)
  }
  let held = heldCounts.get(actor.rto)
  if (held?.marks !== key) {
    held = { marks: key, rows: await holdings.enrolmentsHeldByPeriod(db, actor.rto, FIRST_REPORTING_PERIOD) }
    heldCounts.set(actor.rto, held)
  }
  const byPeriod = new Map<string, PeriodSubmission>()
  const at = (jurisdiction: string, period: number) => {
    const name = `${jurisdiction}:${period}`
    let entry = byPeriod.get(name)
    if (!entry) {
      entry = { jurisdiction, reportingPeriodNumber: period, lastSubmittedAt: null, enrolmentsHeld: 0 }
      byPeriod.set(name, entry)
    }
    return entry
  }
  for (const mark of marks)
    at(mark.jurisdiction, Number(mark.reporting_period)).lastSubmittedAt = new Date(
      mark.last_submitted_at,
    ).toISOString()
  for (const row of held.rows)
    at(row.jurisdiction, Number(row.reporting_period)).enrolmentsHeld = Number(row.enrolments_held)
  return [...byPeriod.values()]
}

/** A held version as people read it: what it says, and where and when it came from. */
export interface HeldVersion {
  resourceType: string
  resourceUID: string
  stateInSubmission: 'In submission' | 'Voided in submission'
  voidedReason: string | null
  jurisdiction: string
  transactionBatchToken: string
  submittedAt: string
  changeTrackingIdentifier: string | null
  /** The record as submitted. */
  body: Record<string, unknown>
}

const versionOf = (row: holdings.HeldRecordRow): HeldVersion => ({
  resourceType: row.resource_type,
  resourceUID: row.resource_uid,
  stateInSubmission: row.state_in_submission,
  voidedReason: row.voided_reason,
  jurisdiction: row.jurisdiction,
  transactionBatchToken: row.transaction_batch_token,
  submittedAt: new Date(row.submitted_at).toISOString(),
  changeTrackingIdentifier: row.change_tracking_identifier,
  body: (row.body ?? {}) as Record<string, unknown>,
})

export const SEARCH_WORDS_MAX = 5

/**
 * The RTO's current held records found by what people know them by: every word of the text must be
 * one of a record's names, client identifier, USI, unit or program code or location identifier
 * (case aside). At most `limit`, newest submission first; one probe of the held_record_search index.
 */
export async function searchHeldRecords(db: ReadDb, actor: Actor, text: string, limit: number): Promise<HeldVersion[]> {
  const words = text
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(0, SEARCH_WORDS_MAX)
  if (words.length === 0) return []
  return (await holdings.searchCurrent(db, actor.rto, words, limit)).map(versionOf)
}

/** The record's held versions, newest first (at most `limit`); none for a record the RTO does not hold. */
export async function heldVersions(
  db: ReadDb,
  actor: Actor,
  resourceType: ResourceType,
  resourceUID: string,
  limit: number,
): Promise<HeldVersion[]> {
  return (await holdings.versionsOf(db, actor.rto, resourceType, resourceUID.toLowerCase(), limit)).map(versionOf)
}

/** The current held versions of the named records, keyed `<type>/<uid>` (lower-case UID), in one read. */
export async function currentHeldVersions(
  db: Reader,
  actor: Actor,
  keys: { resourceType: string; resourceUID: string }[],
): Promise<Map<string, HeldVersion>> {
  const rows = await holdings.currentVersionsOf(
    db,
    actor.rto,
    keys.map((key) => ({ ...key, resourceUID: key.resourceUID.toLowerCase() })),
  )
  return new Map(rows.map((row) => [`${row.resource_type}/${String(row.resource_uid).toLowerCase()}`, versionOf(row)]))
}

/** Records the RTO reported In submission for one jurisdiction and period, of one type. */
export interface ReportedActivity {
  jurisdiction: string
  reportingPeriodNumber: number
  resourceType: string
  records: number
}

/**
 * The activity the RTO reported, per jurisdiction, reporting period (of each version's latest activity
 * date) and record type: read from the counts submit keeps (reported_activity), never from the held
 * records themselves.
 */
export async function reportedActivity(db: ReadDb, actor: Actor): Promise<ReportedActivity[]> {
  const rows = await holdings.reportedActivity(db, actor.rto, FIRST_REPORTING_PERIOD)
  return rows.map((row) => ({
    jurisdiction: row.jurisdiction,
    reportingPeriodNumber: Number(row.reporting_period),
    resourceType: row.resource_type,
    records: Number(row.records),
  }))
}
