// The operators' desk: the collection at a glance over every RTO (standings and totals per period), the
// RTOs' directory, the collection calendar, the background jobs, and SMS clients.
import type { Db } from '../../platform/db/database.ts'
import type { FailedJob, Queue, QueueJobCounts, SlowJob } from '../../platform/queue/queue.ts'
import {
  addClient,
  ClientInputError,
  clientIdsOfRtosMatching,
  listClientIds,
  listClients,
  rotateSecret,
  setEnabled,
  type ClientSummary,
} from '../../platform/auth/clients.service.ts'
import { ALL_SCOPES } from '../../platform/auth/scopes.ts'
import { toPage, type Page } from '../../domain/page.ts'
import type { Jurisdiction } from '../../domain/jurisdictions.ts'
import { rtoCodesHoldingData, rtosHoldingDataMatching, rtosHoldingDataOf } from '../holdings/index.ts'
import { recordClientChange } from '../events/index.ts'
import { assessmentStatusesAcrossPeriods, type AssessmentStatus } from '../assessment/index.ts'
import {
  calendarOf,
  calendarPeriods,
  CalendarInputError,
  clearPeriodDueDate,
  collectionAcrossRtos,
  grantExtension,
  setPeriodDueDate,
  withdrawExtension,
  type RtoPeriodStanding,
} from '../declarations/index.ts'

export interface CollectionRow extends RtoPeriodStanding {
  assessment: AssessmentStatus
}

export interface CollectionTotals {
  rtos: number
  submitted: number
  assessed: number
  declared: number
  overdue: number
}

export interface CollectionView {
  /** One page of the RTOs, in code order (a national collection has thousands). */
  rows: Page<CollectionRow>
  totals: CollectionTotals
}

/** RTOs a page of the collection shows. */
export const COLLECTION_PAGE_SIZE = 50

/**
 * The collection at a glance for an operator: every RTO reporting under the jurisdiction, whether it
 * submitted data for the period, its assessment's status, its declaration and whether it is overdue,
 * counted over every RTO and shown a page at a time. The assessment statuses are assessment's own
 * status, read for every RTO at once.
 */
export async function collectionAtAGlance(
  db: Db,
  jurisdiction: Jurisdiction,
  period: number,
  pageNumber = 1,
): Promise<CollectionView> {
  return (await collectionOverPeriods(db, jurisdiction, [period], pageNumber)).get(period)!
}

/**
 * The collection at a glance of several periods at once (the page's period, first, and its progress
 * chart's): the totals of every period over every RTO, counted in the database (declarations'
 * collectionAcrossRtos), and the rows of one page for the first period only; the others' views have
 * their totals and no rows (the chart reads only totals). A standing and an assessment status are made
 * for the page's RTOs alone; the Validated count looks only at RTOs that have a run of the period.
 */
export async function collectionOverPeriods(
  db: Db,
  jurisdiction: Jurisdiction,
  periods: readonly number[],
  pageNumber = 1,
): Promise<Map<number, CollectionView>> {
  const shownPeriod = periods[0]!
  const start = (pageNumber - 1) * COLLECTION_PAGE_SIZE
  const collection = await collectionAcrossRtos(db, jurisdiction, periods, {
    period: shownPeriod,
    offset: start,
    limit: COLLECTION_PAGE_SIZE,
  })
  const assessments = await assessmentStatusesAcrossPeriods(db, collection.rtos, jurisdiction, periods)
  return new Map(
    periods.map((period): [number, CollectionView] => {
      const statuses = assessments.get(period)!
      const rows =
        period === shownPeriod
          ? collection.rows.map((standing) => ({ ...standing, assessment: statuses.of(standing.rto) }))
          : []
      const { submitted, declared, overdue } = collection.totals.get(period)!
      return [
        period,
        {
          rows: toPage(rows, collection.rtos.length, { pageNumber, pageSize: COLLECTION_PAGE_SIZE }),
          totals: { rtos: collection.rtos.length, submitted, assessed: statuses.validated, declared, overdue },
        },
      ]
    }),
  )
}

/** An RTO in the operators' list: its code, its SMS clients, and when it last submitted data. */
export interface RtoEntry {
  rto: string
  clientIds: string[]
  /** When it last submitted data (ISO 8601), or null: it has a client but holds no data. */
  lastSubmittedAt: string | null
}

export const RTOS_PAGE_SIZE = 50

/**
 * The RTOs an operator can look at: every RTO that holds submitted data or has an API client (an RTO
 * loaded without a client, like the synthetic seed's, holds data all the same), found by the start of
 * its code or by a client id containing the text, a page at a time in code order. The service keeps
 * no RTO names (no register of them is part of the service), so codes and client ids are what is searched.
 */
export async function rtoDirectory(db: Db, search: string, pageNumber: number): Promise<Page<RtoEntry>> {
  const text = search.trim().toLowerCase()
  if (text === '') return allRtos(db, pageNumber)
  // A search reads only the RTOs it can find (by code, or by a client's id, with all their clients):
  // reading every client and RTO per view was the searched page's time at 4,000 RTOs. The filter
  // below still decides, over those.
  const clients = await clientIdsOfRtosMatching(db, text)
  const holding = await rtosHoldingDataMatching(db, text, [...new Set(clients.map((client) => client.rto))])
  const byRto = new Map<string, RtoEntry>()
  const entry = (rto: string) => {
    const found = byRto.get(rto) ?? { rto, clientIds: [], lastSubmittedAt: null }
    byRto.set(rto, found)
    return found
  }
  for (const client of clients) entry(client.rto).clientIds.push(client.clientId)
  for (const row of holding) entry(row.rto).lastSubmittedAt = row.lastSubmittedAt
  const matching = [...byRto.values()]
    .filter((e) => e.rto.toLowerCase().startsWith(text) || e.clientIds.some((id) => id.toLowerCase().includes(text)))
    .sort((a, b) => codeOrder(a.rto, b.rto))
  const start = (pageNumber - 1) * RTOS_PAGE_SIZE
  return toPage(matching.slice(start, start + RTOS_PAGE_SIZE), matching.length, {
    pageNumber,
    pageSize: RTOS_PAGE_SIZE,
  })
}

const codeOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Every RTO, unsearched: the codes of those with a client (and their client ids, read from an index
 * alone) and of those holding data, then when the page's RTOs last submitted. Reading when every RTO
 * last submitted (an aggregate of every kept row, thousands of timestamps sent and parsed per view)
 * was most of the page's time at 4,000 RTOs.
 */
async function allRtos(db: Db, pageNumber: number): Promise<Page<RtoEntry>> {
  const [clients, holding] = await Promise.all([listClientIds(db), rtoCodesHoldingData(db)])
  const clientIdsOf = new Map<string, string[]>()
  for (const client of clients) {
    const ids = clientIdsOf.get(client.rto) ?? []
    ids.push(client.clientId)
    clientIdsOf.set(client.rto, ids)
  }
  for (const rto of holding) if (!clientIdsOf.has(rto)) clientIdsOf.set(rto, [])
  const codes = [...clientIdsOf.keys()].sort(codeOrder)
  const start = (pageNumber - 1) * RTOS_PAGE_SIZE
  const shown = codes.slice(start, start + RTOS_PAGE_SIZE)
  const submitted = new Map((await rtosHoldingDataOf(db, shown)).map((row) => [row.rto, row.lastSubmittedAt]))
  const rows = shown.map((rto) => ({
    rto,
    clientIds: clientIdsOf.get(rto)!,
    lastSubmittedAt: submitted.get(rto) ?? null,
  }))
  return toPage(rows, codes.length, { pageNumber, pageSize: RTOS_PAGE_SIZE })
}

/** The collection calendar of a jurisdiction, for operators (declarations' own use cases). */
export const collectionCalendar = {
  of: calendarOf,
  periods: calendarPeriods,
  setDueDate: setPeriodDueDate,
  clearDueDate: clearPeriodDueDate,
  grantExtension,
  withdrawExtension,
  InputError: CalendarInputError,
}

export interface JobsView {
  counts: QueueJobCounts[]
  /** Each queue's most recent failed jobs, for the queues that have any; undefined when not asked for. */
  failed: { queue: string; jobs: FailedJob[] }[] | undefined
  /** Jobs running longer than the threshold, longest first; undefined when not asked for. */
  slow: SlowJob[] | undefined
}

export const FAILED_JOBS_SHOWN = 20
export const SLOW_JOBS_SHOWN = 50
/**
 * What "slow" means when the page is not told: running for longer than this many minutes. pg-boss
 * fails an attempt that runs past its expiry (15 minutes, the queues' default) with "job timed out",
 * so a slow job is one on its way there.
 */
export const DEFAULT_SLOW_MINUTES = 5
export const JOB_FILTERS = ['all', 'failed', 'slow'] as const
export type JobFilter = (typeof JOB_FILTERS)[number]

/**
 * The background jobs, for an operator: each queue's jobs by state, and (as the filter asks) the
 * latest failed ones with their error, and those running longer than `slowMinutes`.
 */
export async function jobsView(
  queue: Queue,
  filter: { show: JobFilter; slowMinutes: number } = { show: 'all', slowMinutes: DEFAULT_SLOW_MINUTES },
): Promise<JobsView> {
  const counts = await queue.jobCounts()
  let failed: JobsView['failed']
  if (filter.show !== 'slow') {
    failed = []
    for (const { queue: name } of counts.filter((c) => c.failed > 0))
      failed.push({ queue: name, jobs: (await queue.failedJobs(name, FAILED_JOBS_SHOWN)) ?? [] })
  }
  const slow = filter.show !== 'failed' ? await queue.slowJobs(filter.slowMinutes, SLOW_JOBS_SHOWN) : undefined
  return { counts, failed, slow }
}

/**
 * SMS clients, for operators: the same use cases as the operators' command line (`npm run cli --
 * clients ...`). A secret is returned once, to be shown once; only its hash is stored.
 */
export const smsClients = {
  scopes: ALL_SCOPES,
  list: (db: Db): Promise<ClientSummary[]> => listClients(db),
  add: (db: Db, input: { clientId: string; rto: string; scopes: string[] }) => addClient(db, input, recordClientChange),
  rotate: (db: Db, clientId: string) => rotateSecret(db, clientId, recordClientChange),
  setEnabled: (db: Db, clientId: string, enabled: boolean) => setEnabled(db, clientId, enabled, recordClientChange),
  InputError: ClientInputError,
}
