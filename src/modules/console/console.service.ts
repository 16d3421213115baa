// What the console's pages show and do, put together from the other modules' use cases (through their
// index files): no rule of the service is written again here. Each function takes the actor of the
// signed-in person for the RTO whose page it is (console-people.ts), so a page shows exactly what
// that RTO's API clients would read.
import type { Db, ReadDb } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { FailedJob, JobDefinition, Queue, QueueJobCounts, SlowJob } from '../../platform/queue/queue.ts'
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
import { DomainError } from '../../domain/errors.ts'
import {
  changesBetween,
  type FieldChange,
  type FieldLine,
  neighboursOf,
  recordLabel,
  valueAt,
} from './record-content.ts'
import { toPage, type Page } from '../../domain/page.ts'
import { currentReportingPeriod, FIRST_REPORTING_PERIOD, utcToday } from '../../domain/reporting-period.ts'
import { jurisdictions as jurisdictionsInSpecOrder, type Jurisdiction } from '../../domain/jurisdictions.ts'
import { segmentOf, type ResourceType } from '../../domain/resource-types.ts'
import {
  discardBatch as discardTransactionBatch,
  findBatches,
  getBatch,
  readRecords,
  type BatchDetail,
  type BatchFilter,
  type BatchRef,
  type BatchSummary,
} from '../batches/index.ts'
import {
  cancelValidation,
  failedResultsByRule,
  getValidationStatus,
  listFailedResults,
  requestValidation,
  type FailedResultsOfRule,
  type ResultFilter,
  type ValidateJobData,
  type ValidationResult,
  type ValidationStatus,
} from '../validation/index.ts'
import {
  heldState,
  currentHeldVersions,
  heldVersions,
  periodSubmissions,
  rtosHoldingData,
  rtosHoldingDataMatching,
  searchHeldRecords,
  requestSubmit,
  submitStatus,
  submitUnderWay,
  type HeldState,
  type SubmitJobData,
  type SubmitStatus,
  type HeldVersion,
} from '../holdings/index.ts'
import { recordClientChange } from '../events/index.ts'
import {
  natFindings,
  natImportStatus,
  requestNatImport,
  type NatImportJobData,
  type NatImportStatus,
  natImportOf,
  natImportSummaryOf,
  natFileNamesOf,
  type NatFinding,
  type NatImportResult,
} from '../nat-bridge/index.ts'
import { currentRecordsOf, datasetSummaries, type CurrentRecord, type DatasetSummary } from '../reference-data/index.ts'
import {
  relatedResources,
  relatedStartSegments,
  type ReconcileJobData,
  type ReconciliationItem,
} from '../reconciliation/index.ts'
import {
  assessmentStatusesAcrossPeriods,
  cancelAssessment,
  failedAssessmentResultsByRule,
  getAssessmentStatus,
  listFailedAssessmentResults,
  requestAssessment,
  type AssessJobData,
  type AssessmentResult,
  type AssessmentStatus,
  type FailedAssessmentResultsOfRule,
} from '../assessment/index.ts'
import {
  calendarOf,
  calendarPeriods,
  CalendarInputError,
  clearPeriodDueDate,
  grantExtension,
  setPeriodDueDate,
  withdrawExtension,
  acknowledgementsOfDeclarations,
  isOverdue,
  listDeclarations,
  collectionAcrossRtos,
  type DeclarationRecord,
  type RtoPeriodStanding,
  type WarningAcknowledgement,
} from '../declarations/index.ts'

export interface ConsoleDependencies {
  db: Db
  /** The read handle (a replica when there is one) the API's held-data reads use. */
  readDb: ReadDb
  queue: Queue
  validationJob: JobDefinition<ValidateJobData>
  reconcileJob: JobDefinition<ReconcileJobData>
  assessmentJob: JobDefinition<AssessJobData>
  natImportJob: JobDefinition<NatImportJobData>
  submitJob: JobDefinition<SubmitJobData>
}

/** Where one reporting period stands in one jurisdiction, for the RTO's home page. */
export interface PeriodStanding {
  reportingPeriodNumber: number
  jurisdiction: string
  enrolmentsHeld: number
  lastSubmittedAt: string | null
  assessment: AssessmentStatus
  declaration: DeclarationRecord | null
  declarationDueDate: string
  overdue: boolean
}

/** The reporting periods the console shows: the current one and up to nine before it, newest first. */
export function recentPeriods(today = utcToday()): number[] {
  const periods: number[] = []
  for (let period = currentReportingPeriod(today); period >= FIRST_REPORTING_PERIOD && periods.length < 10; ) {
    periods.push(period)
    period = period % 100 === 1 ? (Math.floor(period / 100) - 1) * 100 + 4 : period - 1
  }
  return periods
}

/**
 * Each reporting period and jurisdiction the RTO has reported under or declared for: enrolments held,
 * its latest submission, the data quality assessment, the current declaration and its due date, and
 * whether the declaration is overdue (none yet and the due date has passed).
 */
export async function periodStandings(deps: ConsoleDependencies, actor: Actor): Promise<PeriodStanding[]> {
  const periods = recentPeriods()
  const [declarations, submissions] = await Promise.all([
    listDeclarations(deps.db, actor, {
      reportingPeriodNumber: periods.map(String),
      pageNumber: 1,
      pageSize: 100,
      sortOrder: 'Desc',
      includeSuperseded: false,
    }),
    periodSubmissions(deps.db, actor),
  ])
  const today = utcToday()
  // The assessment statuses of every row, read per jurisdiction for all its periods at once (three
  // reads each, in parallel) rather than three sequential reads per row.
  const rowJurisdictions = [...new Set(declarations.results.map((row) => row.jurisdiction))]
  const statuses = new Map(
    await Promise.all(
      rowJurisdictions.map(
        async (j) => [j, await assessmentStatusesAcrossPeriods(deps.db, [actor.rto], j, periods)] as const,
      ),
    ),
  )
  const standings: PeriodStanding[] = []
  for (const row of declarations.results) {
    const submitted = submissions.find(
      (s) => s.jurisdiction === row.jurisdiction && s.reportingPeriodNumber === row.reportingPeriodNumber,
    )
    const assessment =
      statuses.get(row.jurisdiction)!.get(row.reportingPeriodNumber)?.of(actor.rto) ??
      (await getAssessmentStatus(deps.db, actor, {
        jurisdiction: row.jurisdiction,
        ReportingPeriodNumber: String(row.reportingPeriodNumber),
      }))
    standings.push({
      reportingPeriodNumber: row.reportingPeriodNumber,
      jurisdiction: row.jurisdiction,
      enrolmentsHeld: submitted?.enrolmentsHeld ?? 0,
      lastSubmittedAt: submitted?.lastSubmittedAt ?? null,
      assessment,
      declaration: row.declaration,
      declarationDueDate: row.declarationDueDate,
      overdue: isOverdue(row.declaration !== null, row.declarationDueDate, today),
    })
  }
  return standings
}

export interface BatchListEntry extends BatchDetail {
  validation: ValidationStatus | null
}

/** Where a batch came from: an SMS's API client, or the console; and the NAT files when a NAT import made it. */
export interface BatchSource {
  via: 'console' | 'sms'
  /** The SMS's API client id (for a batch an SMS made). */
  clientId: string | undefined
  /** The NAT file names a NAT import made the batch from; undefined when no NAT import made it. */
  natFiles: string[] | undefined
}

export interface BatchListRow extends BatchListEntry {
  source: BatchSource
}

/** The console's own API client ids start so (console-people's actorFor). */
const CONSOLE_CLIENT_PREFIX = 'console:'

/**
 * A page of the RTO's batches the filter keeps, newest first, each with where it came from, its record
 * counts and validation status.
 */
export async function batchesPage(
  db: Db,
  actor: Actor,
  filter: Omit<BatchFilter, 'jurisdiction'>,
  pageNumber: number,
): Promise<Page<BatchListRow> & { searchComplete: boolean }> {
  const page = await findBatches(db, actor, filter, { pageNumber, pageSize: 20 })
  const natFiles = await natFileNamesOf(
    db,
    actor,
    page.results.map((b) => b.transactionBatchToken),
  )
  const results: BatchListRow[] = []
  for (const summary of page.results) {
    const viaConsole = summary.createdByClient.startsWith(CONSOLE_CLIENT_PREFIX)
    results.push({
      ...(await batchWithStatus(db, actor, refOf(summary))),
      source: {
        via: viaConsole ? 'console' : 'sms',
        clientId: viaConsole ? undefined : summary.createdByClient,
        natFiles: natFiles.get(summary.transactionBatchToken),
      },
    })
  }
  return { ...page, results }
}

/** The caller's batch with its record counts; 404 when not theirs. */
export function batchOf(db: Db, actor: Actor, ref: BatchRef): Promise<BatchDetail> {
  return getBatch(db, actor, ref)
}

/** Discards a batch not submitted, with everything in it: the API's DELETE on a batch. */
export function discardBatch(db: Db, actor: Actor, ref: BatchRef): Promise<void> {
  return discardTransactionBatch(db, actor, ref)
}

export interface BatchView {
  batch: BatchListEntry
  /** Failed results per rule of the latest completed validation; undefined before any has completed. */
  rules: FailedResultsOfRule[] | undefined
  results: Page<ValidationResult> | undefined
  /** What the NAT import that made the batch answered; undefined for a batch an SMS reported. */
  natImport: NatImportResult | undefined
  /** Each result of the page as people read it (by its index): who or what the record is, and the failing fields' values. */
  content: ResultContent[]
  /** The id of a submit of the batch that is queued or running: the page leads to it instead of offering Submit. */
  submitUnderWay: string | undefined
}

export interface ResultContent {
  label: { title: string; details: string[] } | undefined
  /** Each access path of the result with the record's value there (undefined: the record gives none). */
  values: { path: string; value: string | undefined }[]
  /** The fields beside the failing ones in the record (record-content.ts, neighboursOf). */
  neighbours: FieldLine[]
}

const UID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The content behind a page of failed results: the batch's records for results about the batch, the
 * current held versions for results about records submitted before; two reads for the whole page.
 */
async function contentOf(db: Db, actor: Actor, ref: BatchRef, results: ValidationResult[]): Promise<ResultContent[]> {
  const keyOf = (r: { resourceType: string; resourceUID: string }) => `${r.resourceType}/${r.resourceUID.toLowerCase()}`
  const wanted = results.filter((r) => UID_PATTERN.test(r.resourceUID))
  const fromBatch = wanted.filter((r) => r.dataSource === 'Transaction_batch')
  const fromHeld = wanted.filter((r) => r.dataSource !== 'Transaction_batch')
  const [batchBodies, held] = await Promise.all([
    readRecords(db, actor, ref, fromBatch),
    currentHeldVersions(db, actor, fromHeld),
  ])
  return results.map((r) => {
    const body = r.dataSource === 'Transaction_batch' ? batchBodies.get(keyOf(r)) : held.get(keyOf(r))?.body
    const record = (body ?? {}) as Record<string, unknown>
    return {
      label: body ? recordLabel(r.resourceType, record) : undefined,
      values: r.accessPath.map((path) => ({ path, value: body ? valueAt(body, path) : undefined })),
      neighbours: body ? neighboursOf(body, r.accessPath) : [],
    }
  })
}

export const RESULTS_PAGE_SIZE = 50

/** One batch: its counts and status, its failed results per rule, and a page of them as filtered. */
export async function batchView(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  filter: ResultFilter,
  pageNumber: number,
): Promise<BatchView> {
  const batch = await batchWithStatus(db, actor, ref)
  const [rules, results, natImport, underWay] = await Promise.all([
    withoutCompletedRun(failedResultsByRule(db, actor, ref)),
    withoutCompletedRun(listFailedResults(db, actor, ref, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, filter)),
    natImportSummaryOf(db, actor, ref),
    batch.status === 'NotSubmitted' ? submitUnderWay(db, actor, batch.transactionBatchToken) : undefined,
  ])
  const content = results ? await contentOf(db, actor, ref, results.results) : []
  return { batch, rules, results, natImport, content, submitUnderWay: underWay }
}

/** Every failed result the filter keeps, a page at a time (the CSV download). */
export async function* allFailedResults(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  filter: ResultFilter,
): AsyncGenerator<ValidationResult> {
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await listFailedResults(db, actor, ref, { pageNumber, pageSize: 500 }, filter)
    yield* page.results
    if (pageNumber >= page.numberOfPages) return
  }
}

export function validateBatch(deps: ConsoleDependencies, actor: Actor, ref: BatchRef) {
  return requestValidation({ db: deps.db, queue: deps.queue, job: deps.validationJob }, actor, ref)
}

/** Cancels the batch's Queued or InProgress validation (the API's DELETE .../validate). */
export function cancelBatchValidation(db: Db, actor: Actor, ref: BatchRef) {
  return cancelValidation(db, actor, ref)
}

/**
 * Why the batch may not be submitted as asked: it was made by a NAT import that left lines out (lines
 * it could not read or map), and the form did not acknowledge their number. Names the first of them.
 */
export async function unacknowledgedNatProblems(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  acknowledged: string | undefined,
): Promise<string | undefined> {
  const nat = await natImportSummaryOf(db, actor, ref)
  const count = nat?.natProblemCount ?? 0
  if (!nat || count === 0 || acknowledged === String(count)) return undefined
  const first = nat.natProblems
    .slice(0, 3)
    .map((problem) => `${problem.nat[0]?.text ?? problem.stage}: ${problem.message}`)
    .join('; ')
  return `Not submitted: the NAT import that made this batch left out ${count} NAT ${count === 1 ? 'problem' : 'problems'} (${first}${count > 3 ? '; ...' : ''}), so the held data would lack what ${count === 1 ? 'it names' : 'they name'}. Correct the NAT files and import them again, or tick the acknowledgement and submit without ${count === 1 ? 'it' : 'them'}.`
}

/**
 * Submits as the API does, with the same conditions (a NAT import's dropped lines), as a queued job
 * (holdings' submit job): `acknowledged` is the form's acknowledgement box, passed on as the API's
 * acknowledgeDropped when it is a number. Waits up to `waitMs` for the job, so a small submit answers
 * with how it ended, as when it ran in the request; a longer one answers Queued or Running, and the
 * console goes to its status page.
 */
export async function submit(
  deps: ConsoleDependencies,
  actor: Actor,
  ref: BatchRef,
  acknowledged?: string,
  waitMs = SUBMIT_WAIT_MS,
): Promise<SubmitStatus> {
  const request = acknowledged && /^\d{1,9}$/.test(acknowledged) ? { acknowledgeDropped: Number(acknowledged) } : {}
  const submitId = await requestSubmit({ db: deps.db, queue: deps.queue, job: deps.submitJob }, actor, ref, request)
  const jurisdiction = ref.jurisdiction ?? (await batchOf(deps.db, actor, ref)).jurisdiction
  let status = await submitStatus(deps.db, actor, jurisdiction, submitId)
  for (let wait = 50, until = Date.now() + waitMs; Date.now() < until; wait = Math.min(wait * 2, 500)) {
    if (status.status === 'Submitted' || status.status === 'Failed') return status
    await new Promise((resolve) => setTimeout(resolve, wait))
    status = await submitStatus(deps.db, actor, jurisdiction, submitId)
  }
  return status
}

export type SubmitOutcome = SubmitStatus

/** How long the submit's post waits for its job before answering with the submit's status page. */
const SUBMIT_WAIT_MS = 5000

/** Where a queued submit of the RTO is (404 for another RTO's or none). */
export function submitProgress(db: Db, actor: Actor, jurisdiction: string, submitId: string) {
  return submitStatus(db, actor, jurisdiction, submitId)
}

/**
 * Every declaration the RTO made for the console's periods, superseded ones included, newest first,
 * and the warnings acknowledged for each (those of the assessment it relied on), by declaration id.
 */
export async function declarationHistory(
  db: Db,
  actor: Actor,
): Promise<{ declarations: DeclarationRecord[]; acknowledgements: Map<string, WarningAcknowledgement[]> }> {
  const page = await listDeclarations(db, actor, {
    reportingPeriodNumber: recentPeriods().map(String),
    pageNumber: 1,
    pageSize: 100,
    sortOrder: 'Desc',
    includeSuperseded: true,
  })
  const declarations = page.results
    .flatMap((row) => (row.declaration ? [row.declaration] : []))
    .sort((a, b) => b.declaredAt.localeCompare(a.declaredAt))
  const acknowledgements = await acknowledgementsOfDeclarations(
    db,
    actor,
    declarations.map((d) => d.declarationId),
  )
  return { declarations, acknowledgements }
}

export const JURISDICTIONS: readonly Jurisdiction[] = jurisdictionsInSpecOrder

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
  // A search reads only the RTOs it can find (by code, or by a client's id, with all their clients):
  // reading every client and RTO per view was the searched page's time at 4,000 RTOs. The filter
  // below still decides, over those.
  const [clients, holding] =
    text === ''
      ? await Promise.all([listClientIds(db), rtosHoldingData(db)])
      : await clientIdsOfRtosMatching(db, text).then(
          async (found) =>
            [found, await rtosHoldingDataMatching(db, text, [...new Set(found.map((client) => client.rto))])] as const,
        )
  const byRto = new Map<string, RtoEntry>()
  const entry = (rto: string) => {
    const found = byRto.get(rto) ?? { rto, clientIds: [], lastSubmittedAt: null }
    byRto.set(rto, found)
    return found
  }
  for (const client of clients) entry(client.rto).clientIds.push(client.clientId)
  for (const row of holding) entry(row.rto).lastSubmittedAt = row.lastSubmittedAt
  const matching = [...byRto.values()]
    .filter(
      (e) =>
        text === '' ||
        e.rto.toLowerCase().startsWith(text) ||
        e.clientIds.some((id) => id.toLowerCase().includes(text)),
    )
    .sort((a, b) => (a.rto < b.rto ? -1 : a.rto > b.rto ? 1 : 0))
  const start = (pageNumber - 1) * RTOS_PAGE_SIZE
  return toPage(matching.slice(start, start + RTOS_PAGE_SIZE), matching.length, {
    pageNumber,
    pageSize: RTOS_PAGE_SIZE,
  })
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

/** The batch's validation status; undefined when none has been requested. */
export function validationStatusOf(db: Db, actor: Actor, ref: BatchRef): Promise<ValidationStatus | undefined> {
  return withoutCompletedRun(getValidationStatus(db, actor, ref))
}

async function batchWithStatus(db: Db, actor: Actor, ref: BatchRef): Promise<BatchListEntry> {
  const [batch, validation] = await Promise.all([
    getBatch(db, actor, ref),
    withoutCompletedRun(getValidationStatus(db, actor, ref)),
  ])
  return { ...batch, validation: validation ?? null }
}

const refOf = (summary: BatchSummary): BatchRef => ({
  token: summary.transactionBatchToken,
  jurisdiction: summary.jurisdiction,
})

/** The answer, or undefined when the batch has no (completed) validation run yet. */
async function withoutCompletedRun<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'no-validation-run') return undefined
    throw error
  }
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

/** A zip of NAT files into a new batch of the RTO: the API's NAT import, with its limits. */
/**
 * Queues the NAT import (the API's nat-import job), then waits a moment for it: a small set has ended
 * by then, and the page goes straight to its answer; a large one is followed on its status page.
 */
export async function importNat(
  deps: ConsoleDependencies,
  actor: Actor,
  jurisdiction: string,
  zip: Uint8Array,
  limits: { natFilesBytes: number },
  waitMs = NAT_IMPORT_WAIT_MS,
): Promise<NatImportStatus> {
  const queued = await requestNatImport(
    { db: deps.db, queue: deps.queue, job: deps.natImportJob },
    actor,
    jurisdiction,
    zip,
    { maxFilesBytes: limits.natFilesBytes },
  )
  let status = queued
  for (const until = Date.now() + waitMs; Date.now() < until; ) {
    if (status.status === 'Completed' || status.status === 'Failed') return status
    await new Promise((resolve) => setTimeout(resolve, 100))
    status = await natImportStatus(deps.db, actor, jurisdiction, queued.importId)
  }
  return status
}

/** How long the import's post waits for the import before answering with its status page. */
const NAT_IMPORT_WAIT_MS = 5000

/** Where a queued NAT import of the RTO is (404 for another RTO's or none). */
export function natImportProgress(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  importId: string,
): Promise<NatImportStatus> {
  return natImportStatus(db, actor, jurisdiction, importId)
}

/** What the NAT import that made the batch answered; 404 for a batch not made by one. */
export function natImportAnswer(db: Db, actor: Actor, ref: BatchRef): Promise<NatImportResult> {
  return natImportOf(db, actor, ref)
}

/**
 * A page of the batch's failed results, each at the NAT file, line and field it came from (the NAT
 * bridge reads the batch's zip again in a worker to place them); 404 for a batch no NAT import made.
 */
export function natFindingsPage(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  pageNumber: number,
  natFilesBytes: number,
): Promise<Page<NatFinding>> {
  return natFindings(db, actor, ref, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, { maxFilesBytes: natFilesBytes })
}

/** A reporting period and jurisdiction of the RTO, as the assessment use cases take it. */
export interface PeriodChoice {
  jurisdiction: Jurisdiction
  period: number
}

export interface AssessmentView {
  status: AssessmentStatus
  /** Failed outcomes per rule of the latest completed assessment; undefined before any has completed. */
  rules: FailedAssessmentResultsOfRule[] | undefined
  results: Page<AssessmentResult> | undefined
  /** Who or what each outcome's record is (by its index in the page), from its current held version. */
  labels: ({ title: string; details: string[] } | undefined)[]
}

/** Cancels the period's Queued or In Progress assessment (the API's DELETE .../validate). */
export function cancelPeriodAssessment(db: Db, actor: Actor, choice: PeriodChoice): Promise<void> {
  return cancelAssessment(db, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}

/** The period's assessment status, as GET .../reporting-period/{jurisdiction}/{period}/validate answers it. */
export function assessmentStatus(db: Db, actor: Actor, choice: PeriodChoice): Promise<AssessmentStatus> {
  return getAssessmentStatus(db, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}

/**
 * The data quality assessment of one period and jurisdiction: its status (the API's GET validate),
 * and the latest completed assessment's failed outcomes counted per rule and a page of them, of one
 * rule when a rule is chosen.
 */
export async function assessmentView(
  db: Db,
  actor: Actor,
  choice: PeriodChoice,
  technicalRuleId: string | undefined,
  pageNumber: number,
): Promise<AssessmentView> {
  const params = { jurisdiction: choice.jurisdiction, ReportingPeriodNumber: String(choice.period) }
  const [status, rules, results] = await Promise.all([
    getAssessmentStatus(db, actor, params),
    withoutCompletedAssessment(failedAssessmentResultsByRule(db, actor, params)),
    withoutCompletedAssessment(
      listFailedAssessmentResults(db, actor, params, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, { technicalRuleId }),
    ),
  ])
  const held = results
    ? await currentHeldVersions(
        db,
        actor,
        results.results.filter((r) => UID_PATTERN.test(r.resourceUID)),
      )
    : new Map<string, HeldVersion>()
  const labels = (results?.results ?? []).map((r) => {
    const version = held.get(`${r.resourceType}/${r.resourceUID.toLowerCase()}`)
    return version ? recordLabel(r.resourceType, version.body) : undefined
  })
  return { status, rules, results, labels }
}

/** Requests an assessment of the period (the API's POST validate): 409 while one is Queued or In Progress. */
export function assess(deps: ConsoleDependencies, actor: Actor, choice: PeriodChoice): Promise<AssessmentStatus> {
  return requestAssessment({ db: deps.db, queue: deps.queue, job: deps.assessmentJob }, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}

async function withoutCompletedAssessment<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'no-assessment-run') return undefined
    throw error
  }
}

export interface HeldRecordView {
  state: HeldState
  /**
   * The held records related to it (the API's related-resources), newest activity first; undefined
   * for a type related-resources does not start from, or a record not in submission.
   */
  related: Page<ReconciliationItem> | undefined
  /** Its held versions, newest first (at most VERSIONS_SHOWN), each with what changed from the one before. */
  versions: (HeldVersion & { changes: FieldChange[] | undefined })[]
}

export const VERSIONS_SHOWN = 20
export const SEARCH_RESULTS_SHOWN = 50

export const RELATED_PAGE_SIZE = 20

/** A held record by type and UID: its held state (the API's GET of the record) and its related records. */
export async function heldRecordView(
  readDb: ReadDb,
  actor: Actor,
  type: ResourceType,
  uid: string,
  pageNumber: number,
): Promise<HeldRecordView> {
  const state = await heldState(readDb, actor, type, uid)
  const segment = segmentOf(type)
  const related =
    state.stateInSubmission === 'In submission' && (relatedStartSegments as readonly string[]).includes(segment)
      ? await relatedResources(readDb, actor, segment, state.resourceUID, { pageNumber, pageSize: RELATED_PAGE_SIZE })
      : undefined
  const held = await heldVersions(readDb, actor, type, uid, VERSIONS_SHOWN + 1)
  const versions = held.slice(0, VERSIONS_SHOWN).map((version, index) => ({
    ...version,
    changes: held[index + 1] ? changesBetween(held[index + 1]!.body, version.body) : undefined,
  }))
  return { state, related, versions }
}

/** The RTO's current held records found by what people know them by (holdings' search). */
export function recordSearch(readDb: ReadDb, actor: Actor, text: string): Promise<HeldVersion[]> {
  return searchHeldRecords(readDb, actor, text, SEARCH_RESULTS_SHOWN)
}

export const REFERENCE_PAGE_SIZE = 50

/** Every reference dataset and classification the service serves, with its number of current records. */
export function referenceDatasets(readDb: ReadDb): Promise<DatasetSummary[]> {
  return datasetSummaries(readDb)
}

/** A page of a dataset's current records in code order (what a full synchronisation ends with). */
export function referenceRecords(
  readDb: ReadDb,
  name: string,
  pageNumber: number,
): Promise<{ dataset: { name: string; title: string; kind: string; source: string }; records: Page<CurrentRecord> }> {
  return currentRecordsOf(readDb, name, { pageNumber, pageSize: REFERENCE_PAGE_SIZE })
}
