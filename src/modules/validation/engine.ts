// Runs one validation of a batch. Record rules stream over the batch in chunks (memory stays flat
// however large the batch); set rules run one after another as SQL inside the database. Results are
// written per attempt, so a worker that dies part-way leaves nothing a reader or the retry will use.
import { randomUUID } from 'node:crypto'
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { Logger } from 'pino'
import { transactionsRunAlone, type Db } from '../../platform/db/database.ts'
import { resultSliceRowsFor } from '../../platform/db/sliced-insert.ts'
import type { ReferenceLookup } from '../reference-data/index.ts'
import { batchSubject, jurisdictionOfBatch, recordsOfBatch, type RecordChunkRow } from '../batches/index.ts'
import { recordEvent } from '../events/index.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import { rules } from './rules/index.ts'
import type { KeySlice, RecordContext, RecordRule, RunScope, SetRule } from './rule.ts'
import { addActivityPeriods, utcToday } from '../../domain/reporting-period.ts'
import type { ResultRow } from './validation.tables.ts'
import { keepActivityPeriods, validationRuns } from './validation-runs.repo.ts'
import {
  batchKeySlices,
  insertResults,
  insertSetRuleResults,
  insertSetRuleResultsInKeySlices,
} from './result-writes.repo.ts'
import { asRulesSeeIt } from './no-value.ts'

export interface EngineDependencies {
  db: Db
  referenceLookup: ReferenceLookup
  logger: Logger
  /** Records read per round trip (default 2000). */
  chunkSize?: number
  /**
   * Result rows written per statement (a set rule's results found in one statement, then written in
   * slices: platform/db/sliced-insert.ts). Default: 1,000 on the embedded database, where a
   * statement holds the service's thread; on PostgreSQL each set rule's results are one statement. Null:
   * one statement on either database.
   */
  resultSliceRows?: number | null | undefined
  /**
   * Batch records per statement of a set rule that can be run in key slices (SetRule.slicedParts).
   * Default: 5,000 on the embedded database, where a statement holds the service's thread; on
   * PostgreSQL each rule's query (or part) is one statement. Null: one statement on either database.
   */
  setRuleSliceRecords?: number | null | undefined
}

/** Batch records per key slice of a set rule on the embedded database when the setting gives none. */
export const EMBEDDED_SET_RULE_SLICE_RECORDS = 5000

/** The key slice size a run uses (undefined: no key slices), as resultSliceRowsFor decides for results. */
export function setRuleSliceRecordsFor(db: Db, setting: number | null | undefined): number | undefined {
  if (setting === undefined) return transactionsRunAlone(db) ? EMBEDDED_SET_RULE_SLICE_RECORDS : undefined
  return setting ?? undefined
}

const CHUNK_SIZE = 2000
/** From this many records, set rules run with hash joins only (see insertSetRuleResults). */
const LARGE_BATCH = 2000
const WRITE_BATCH = 1000
const YIELD_EVERY = 200

/** A batch record as record rules see it: No_value taken out, as if those fields were left out (no-value.ts). */
export function rulesView(row: RecordChunkRow): RecordChunkRow {
  const body = asRulesSeeIt(row.resource_type, row.body)
  return body === row.body ? row : { ...row, body }
}

/** The results of one record rule on one batch record (as rulesView gives it): each finding a group of its own (no other resource is involved). */
export function recordRuleResults(
  rule: RecordRule,
  row: RecordChunkRow,
  context: RecordContext,
  run: Pick<ResultRow, 'rto_id' | 'run_id' | 'attempt'>,
): ResultRow[] {
  return rule.check(row.body as never, row.resource_type as ResourceType, context).map((found) => ({
    ...run,
    validation_grouping_id: randomUUID(),
    related_validation_result_count: 1,
    error_number: rule.technicalRuleId,
    rule_id: rule.ruleId,
    technical_rule_id: rule.technicalRuleId,
    validation_message_level: rule.level,
    corrective_action: rule.correctiveAction,
    message: found.message,
    resource_type: row.resource_type,
    resource_uid: row.resource_uid,
    access_path: found.accessPath,
    change_tracking_identifier: row.change_tracking_identifier,
    data_source: 'Transaction_batch',
  }))
}

const recordRules = rules.filter((rule): rule is RecordRule => rule.kind === 'record')
const setRules = rules.filter((rule): rule is SetRule => rule.kind === 'set')
const recordRulesByType = new Map<string, RecordRule[]>()
for (const rule of recordRules) {
  for (const type of rule.resourceTypes) recordRulesByType.set(type, [...(recordRulesByType.get(type) ?? []), rule])
}

export type RunOutcome = 'validated' | 'abandoned' | 'not-runnable'

export async function runValidation(deps: EngineDependencies, rto: string, runId: string): Promise<RunOutcome> {
  const { db } = deps
  const runs = validationRuns
  const run = await runs.claim(db, rto, runId)
  if (!run) return 'not-runnable' // already Validated or Cancelled, or its batch is gone
  const { attempt, transaction_batch_token: token } = run
  const log = deps.logger.child({ rto, runId, attempt })
  await runs.deleteOtherAttempts(db, rto, runId, attempt)
  await deps.referenceLookup.refresh()
  const today = utcToday()
  const context: RecordContext = { today, reference: deps.referenceLookup }

  const sliceRows = resultSliceRowsFor(db, deps.resultSliceRows)
  const writeBatch = Math.min(sliceRows ?? WRITE_BATCH, WRITE_BATCH)
  const started = performance.now()
  const pending: ResultRow[] = []
  const flush = async () => {
    if (pending.length === 0) return
    // Requests that arrived while the rules ran go before the write (issue 30, the embedded database).
    if (sliceRows !== undefined) await yieldToEventLoop()
    await insertResults(db, pending.splice(0))
  }
  let after: { type: string; uid: string } | undefined
  let records = 0
  // The reporting periods of the batch's activity, kept with the run for submit (migration 0046).
  const activityPeriods = new Set<number>()
  for (;;) {
    const chunk = await recordsOfBatch(db, rto, token, after, deps.chunkSize ?? CHUNK_SIZE)
    if (chunk.length === 0) break
    for (const [index, stored] of chunk.entries()) {
      // The record rules are plain JavaScript on the service's thread: a chunk of 2,000 records held
      // it for about a second on a busy machine. Other requests go first every YIELD_EVERY records
      // (issue 30); on the embedded database they also need the thread to reach the connection.
      if (index > 0 && index % YIELD_EVERY === 0) await yieldToEventLoop()
      addActivityPeriods(stored.body, activityPeriods)
      const row = rulesView(stored)
      for (const rule of recordRulesByType.get(row.resource_type) ?? []) {
        for (const result of recordRuleResults(rule, row, context, { rto_id: rto, run_id: runId, attempt })) {
          pending.push(result)
          if (pending.length >= writeBatch) await flush()
        }
      }
    }
    records += chunk.length
    const last = chunk[chunk.length - 1]!
    after = { type: last.resource_type, uid: last.resource_uid }
    await flush()
    if (!(await runs.checkpoint(db, rto, runId, attempt))) return abandoned(deps, log, rto, runId, attempt)
  }

  const scope = { rto, token, today }
  const keyRecords = setRuleSliceRecordsFor(db, deps.setRuleSliceRecords)
  // A batch that fits in one slice runs each rule whole, as without slices: one slice would only add the
  // pieces' statements (the results are the same either way: test/set-rule-slices.test.ts).
  const keySlices = keyRecords === undefined || records <= keyRecords ? undefined : keySlicesOf(db, scope, keyRecords)
  const timings: Record<string, number> = { records: Math.round(performance.now() - started) }
  for (const rule of setRules) {
    const ruleStarted = performance.now()
    await runSetRule(db, rule, scope, runId, attempt, records >= LARGE_BATCH, sliceRows, keySlices)
    timings[rule.technicalRuleId] = Math.round(performance.now() - ruleStarted)
    if (!(await runs.checkpoint(db, rto, runId, attempt))) return abandoned(deps, log, rto, runId, attempt)
  }
  // Completed and told in one transaction: the run is Validated exactly when its event is recorded.
  const completed = await db.transaction().execute(async (tx) => {
    if (!(await runs.complete(tx, rto, runId, attempt))) return false
    await keepActivityPeriods(tx, rto, runId, attempt, [...activityPeriods])
    const outcome = await validationRuns.completedOutcome(tx, rto, runId)
    const jurisdiction = await jurisdictionOfBatch(tx, rto, token)
    await recordEvent(tx, {
      rto,
      type: 'au.gov.vetrs.batch.validated',
      subject: batchSubject(jurisdiction, token),
      jurisdiction,
      data: {
        transactionBatchToken: token,
        validationRunId: runId,
        hasBlockingValidationFailures: outcome.hasBlocking,
        hasNonBlockingValidationFailures: outcome.hasNonBlocking,
        resultsByLevel: outcome.resultsByLevel,
      },
    })
    return true
  })
  if (!completed) return abandoned(deps, log, rto, runId, attempt)
  log.info({ records, milliseconds: timings }, 'batch validated')
  return 'validated'
}

/** A type's key slices of the batch, found once per run (batchKeySlices). */
export type KeySlicesOf = (type: ResourceType) => Promise<KeySlice[]>

/** Key slices of `records` records of the batch in `scope`, each type's found when first asked for. */
export function keySlicesOf(db: Db, scope: RunScope, records: number): KeySlicesOf {
  const found = new Map<ResourceType, Promise<KeySlice[]>>()
  return (type) => {
    let slices = found.get(type)
    if (!slices) {
      slices = batchKeySlices(db, scope, type, records)
      found.set(type, slices)
    }
    return slices
  }
}

/**
 * One set rule's results for an attempt: with `keySlices`, a rule that has `slicedParts` in key slices
 * of the batch (insertSetRuleResultsInKeySlices); otherwise its query, or each of its parts, as one
 * statement.
 */
export async function runSetRule(
  db: Db,
  rule: SetRule,
  scope: RunScope,
  runId: string,
  attempt: number,
  largeBatch: boolean,
  sliceRows: number | undefined,
  keySlices: KeySlicesOf | undefined,
): Promise<void> {
  const parts = keySlices ? rule.slicedParts?.(scope) : undefined
  if (keySlices && parts) {
    await insertSetRuleResultsInKeySlices(db, rule, scope, runId, attempt, largeBatch, parts, keySlices, sliceRows)
    return
  }
  for (const query of rule.queryParts?.(scope) ?? [rule.query(scope)]) {
    // Requests that arrived during the last statement go first: on the embedded database statements
    // run on this thread, and one awaited after another would leave it no turn to read them.
    await yieldToEventLoop()
    await insertSetRuleResults(db, rule, scope, runId, attempt, largeBatch, query, sliceRows)
  }
}

async function abandoned(
  deps: EngineDependencies,
  log: Logger,
  rto: string,
  runId: string,
  attempt: number,
): Promise<RunOutcome> {
  await validationRuns.deleteAttempt(deps.db, rto, runId, attempt)
  log.info('validation run cancelled or superseded; its results are discarded')
  return 'abandoned'
}
