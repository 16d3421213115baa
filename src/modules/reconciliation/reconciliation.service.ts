// Reconciliation use cases (spec: Reconciliation): which of the RTO's records are held, and which
// version, by reporting period, by UID, or around one student or enrolment. Read-only: each takes the
// read handle (ReadDb), the replica when there is one (docs/decisions.md, "Read routing (issue 21)").
import type { ReadDb } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { NotFoundError, StructuralError, type FieldError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { resourceTypes, segmentOf, type ResourceType } from '../../domain/resource-types.ts'
import { firstDayOf, lastDayOf } from '../../domain/reporting-period.ts'
import { REPORTING_PERIOD_PATTERN } from '../../domain/calendar.ts'
import { isBatchReconciled } from '../batches/index.ts'
import * as repo from './reconciliation.repo.ts'
import { itemActivityDate } from './reconciliation-index.repo.ts'
import type {
  ReconciliationItem,
  SearchByPeriodQuery,
  UidMatchRequest,
  UidMatchResponse,
} from './reconciliation.schemas.ts'

export const MAX_REPORTING_PERIODS = 10
const PERIOD = new RegExp(REPORTING_PERIOD_PATTERN)

/** The dates of a reporting period: 202604 is 2026-10-01 to 2026-12-31. */
export function periodRange(code: string): repo.DateRange {
  return { from: firstDayOf(Number(code)), to: lastDayOf(Number(code)) }
}

/** Adjacent periods become one range (202601,202602 -> January to June); newest range first. */
function mergeRanges(ranges: repo.DateRange[]): repo.DateRange[] {
  const sorted = [...ranges].sort((a, b) => a.from.localeCompare(b.from))
  const merged: repo.DateRange[] = []
  for (const range of sorted) {
    const last = merged[merged.length - 1]
    if (last && dayAfter(last.to) >= range.from) last.to = range.to > last.to ? range.to : last.to
    else merged.push({ ...range })
  }
  return merged.reverse()
}

function dayAfter(date: string): string {
  const next = new Date(`${date}T00:00:00Z`)
  next.setUTCDate(next.getUTCDate() + 1)
  return next.toISOString().slice(0, 10)
}

function rangesOf(query: SearchByPeriodQuery): repo.DateRange[] {
  const errors: FieldError[] = []
  const hasRange = query.activityDateFrom !== undefined || query.activityDateTo !== undefined
  if (query.reportingPeriods !== undefined && hasRange) {
    errors.push({
      accessPath: 'query.reportingPeriods',
      message: 'give either reportingPeriods or activityDateFrom and activityDateTo, not both',
    })
  } else if (query.reportingPeriods !== undefined) {
    const codes = query.reportingPeriods // the schema has already checked count, format and repeats; kept here as the rule
    if (codes.length > MAX_REPORTING_PERIODS)
      errors.push({
        accessPath: 'query.reportingPeriods',
        message: `must hold at most ${MAX_REPORTING_PERIODS} reporting period codes (got ${codes.length})`,
      })
    codes.forEach((code, i) => {
      if (!PERIOD.test(code))
        errors.push({
          accessPath: `query.reportingPeriods[${i}]`,
          message: `${JSON.stringify(code)} is not a reporting period code {CalendarYear}{Quarter} such as 202601`,
        })
    })
    if (new Set(codes).size !== codes.length)
      errors.push({ accessPath: 'query.reportingPeriods', message: 'must not repeat a reporting period code' })
    if (errors.length === 0) return mergeRanges(codes.map(periodRange))
  } else if (hasRange) {
    if (query.activityDateFrom === undefined)
      errors.push({ accessPath: 'query.activityDateFrom', message: 'is required with activityDateTo' })
    if (query.activityDateTo === undefined)
      errors.push({ accessPath: 'query.activityDateTo', message: 'is required with activityDateFrom' })
    if (query.activityDateFrom && query.activityDateTo && query.activityDateFrom > query.activityDateTo) {
      errors.push({
        accessPath: 'query.activityDateTo',
        message: `must not be before activityDateFrom (${query.activityDateFrom})`,
      })
    }
    if (errors.length === 0) return [{ from: query.activityDateFrom!, to: query.activityDateTo! }]
  } else {
    errors.push({
      accessPath: 'query.reportingPeriods',
      message: 'give reportingPeriods (1 to 10 codes) or activityDateFrom and activityDateTo',
    })
  }
  throw new StructuralError(errors)
}

const toItem = (row: repo.ItemRow): ReconciliationItem => ({
  resourceUID: row.resource_uid,
  resourceType: row.resource_type,
  submissionDateTime: new Date(row.submitted_at).toISOString(),
  changeTrackingIdentifier: row.change_tracking_identifier,
  studentActivityDate: row.student_activity_date,
})

export async function searchByPeriod(
  db: ReadDb,
  actor: Actor,
  query: SearchByPeriodQuery,
): Promise<Page<ReconciliationItem>> {
  const ranges = rangesOf(query)
  const page: PageQuery = { pageNumber: query.pageNumber, pageSize: query.pageSize }
  // The per-day counts give the total, and the day a deep page starts on: the items of newer days
  // are skipped by date, not one by one.
  const days = await repo.dayCounts(db, actor.rto, query.resourceType, ranges)
  const total = days.reduce((sum, day) => sum + day.items, 0)
  const offset = offsetOf(page)
  if (offset >= total) return toPage([], total, page)
  let before = 0
  let start = days[0]!
  for (const day of days) {
    if (before + day.items > offset) {
      start = day
      break
    }
    before += day.items
  }
  const rows = await repo.itemsInRanges(
    db,
    actor.rto,
    query.resourceType,
    ranges,
    start.day,
    offset - before,
    page.pageSize,
  )
  return toPage(rows.map(toItem), total, page)
}

export async function uidMatch(db: ReadDb, actor: Actor, request: UidMatchRequest): Promise<UidMatchResponse> {
  const seen = new Map<string, number>()
  const errors: FieldError[] = []
  request.resourceUIDs.forEach((uid, i) => {
    const first = seen.get(uid.toLowerCase())
    if (first !== undefined)
      errors.push({ accessPath: `$.resourceUIDs[${i}]`, message: `repeats $.resourceUIDs[${first}] (${uid})` })
    else seen.set(uid.toLowerCase(), i)
  })
  if (errors.length > 0) throw new StructuralError(errors)
  const { from, to } = periodRange(request.reportingPeriod)
  const rows = await repo.itemsByUid(db, actor.rto, request.resourceType, request.resourceUIDs)
  const results = rows.map((row, i) => ({
    resourceUID: request.resourceUIDs[i]!,
    resourceType: request.resourceType,
    resourceInSubmission: row.held && row.student_activity_date >= from && row.student_activity_date <= to,
    submissionDateTime: row.held ? new Date(row.submitted_at).toISOString() : null,
    changeTrackingIdentifier: row.held ? row.change_tracking_identifier : null,
    studentActivityDate: row.held ? row.student_activity_date : null,
  }))
  return {
    resourceType: request.resourceType,
    reportingPeriod: request.reportingPeriod,
    numberOfResults: results.length,
    results,
  }
}

// The spec's traversal paragraph, as sets reached from the start through references.
const t = (set: string) => ({ set, via: 'targets' as const })
const s = (set: string) => ({ set, via: 'sources' as const })
const TRAVERSALS: Partial<Record<ResourceType, readonly repo.TraversalSet[]>> = {
  Student: [
    { name: 'se', type: 'SubjectEnrolment', from: [s('start')] },
    { name: 'pe', type: 'ProgramEnrolment', from: [s('start'), t('se')] },
    { name: 'so', type: 'SubjectOffering', from: [t('se')] },
    { name: 'po', type: 'ProgramOffering', from: [t('pe'), t('so')] },
    { name: 'program', type: 'Program', from: [t('po')] },
    { name: 'subject', type: 'Subject', from: [t('so')] },
    { name: 'dl', type: 'DeliveryLocation', from: [t('se')] },
  ],
  ProgramEnrolment: [
    { name: 'student', type: 'Student', from: [t('start')] },
    { name: 'po', type: 'ProgramOffering', from: [t('start')] },
    { name: 'program', type: 'Program', from: [t('po')] },
  ],
  SubjectEnrolment: [
    { name: 'student', type: 'Student', from: [t('start')] },
    { name: 'so', type: 'SubjectOffering', from: [t('start')] },
    { name: 'subject', type: 'Subject', from: [t('so')] },
    { name: 'pe', type: 'ProgramEnrolment', from: [t('start')] },
    { name: 'dl', type: 'DeliveryLocation', from: [t('start')] },
    // The table lists Program Offering and Program for a subject enrolment: reached through its
    // subject offering, and, inside a program, through its program enrolment (as from a student).
    { name: 'po', type: 'ProgramOffering', from: [t('so'), t('pe')] },
    { name: 'program', type: 'Program', from: [t('po')] },
  ],
}

export async function relatedResources(
  db: ReadDb,
  actor: Actor,
  segment: string,
  uid: string,
  page: PageQuery,
): Promise<Page<ReconciliationItem>> {
  const type = resourceTypes.find((resourceType) => segmentOf(resourceType) === segment)!
  const traversal = TRAVERSALS[type]!
  if (!(await repo.findItem(db, actor.rto, type, uid))) {
    throw new NotFoundError(
      `No ${type} ${uid} is in submission for this RTO (never submitted, voided, or another RTO's).`,
    )
  }
  const { rows, total } = await repo.relatedItems(
    db,
    actor.rto,
    { type, uid },
    traversal,
    page.pageSize,
    offsetOf(page),
  )
  return toPage(rows.map(toItem), total, page)
}

/**
 * Whether reconciliation reflects the submission of batch `token` yet (its reconciledAt is set), and
 * the activity date it searches the record by: the one date the held-state GET shows.
 */
export async function indexedActivityDate(
  db: ReadDb,
  p: { rto: string; token: string; type: string; uid: string },
): Promise<{ reconciled: boolean; date: string | null }> {
  if (!(await isBatchReconciled(db, p.rto, p.token))) return { reconciled: false, date: null }
  return { reconciled: true, date: await itemActivityDate(db, p) }
}
