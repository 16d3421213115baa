// SQL for validation runs and their results. Every statement is scoped by the caller's RTO.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql, type Generated, type RawBuilder, type Selectable } from 'kysely'
import { transactionsRunAlone, type Db, type Executor } from '../../platform/db/database.ts'
import { nameBasedUuid } from '../../platform/db/uuid.ts'
import { insertInSlices } from '../../platform/db/sliced-insert.ts'
import { createRunLifecycle, resultPageStart } from '../../platform/runs/run-lifecycle.ts'
import type { MessageLevel } from '../../domain/rules.ts'
import type { DataSource, KeySlice, RunScope, SetFindingRow, SetRule, SlicedPart } from './rule.ts'
import type { ResourceType } from '../../domain/resource-types.ts'

export type RunStatus = 'Queued' | 'InProgress' | 'Validated' | 'Cancelled'

export interface ValidationRunTable {
  rto_id: string
  run_id: string
  transaction_batch_token: string
  status: RunStatus
  attempt: Generated<number>
  requested_by_client: string
  requested_at: Generated<Date>
  started_at: Date | null
  completed_at: Date | null
  content_version: string | null
  record_count: string | null
  change_seq_sum: string | null
  has_blocking_failures: boolean | null
  has_non_blocking_failures: boolean | null
  result_count: number | null
  /** The results counted per rule (RuleCount[]), kept on completion by the run lifecycle. */
  results_by_rule: Generated<unknown>
  /** The seq of every RESULT_ANCHOR_EVERY-th result (bigint[], platform/runs), kept on completion; null before. */
  result_anchors: Generated<unknown>
}

export interface ValidationResultTable {
  rto_id: string
  run_id: string
  attempt: number
  seq: Generated<string>
  validation_grouping_id: string
  related_validation_result_count: number
  error_number: string
  rule_id: string
  technical_rule_id: string
  validation_message_level: MessageLevel
  corrective_action: string
  message: string
  resource_type: string
  resource_uid: string
  access_path: string[]
  change_tracking_identifier: string | null
  data_source: DataSource
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    validation_run: ValidationRunTable
    validation_result: ValidationResultTable
  }
}

export type RunRow = Selectable<ValidationRunTable>
export type ResultRow = Omit<Selectable<ValidationResultTable>, 'seq'>

/** The batch's content as a fingerprint: any upload, replacement or deletion since changes it. */
export interface Fingerprint {
  content_version: string
  record_count: string
  change_seq_sum: string
}

export async function insertRun(
  db: Executor,
  run: { rto: string; runId: string; token: string; clientId: string },
): Promise<RunRow> {
  return db
    .insertInto('validation_run')
    .values({
      rto_id: run.rto,
      run_id: run.runId,
      transaction_batch_token: run.token,
      status: 'Queued',
      requested_by_client: run.clientId,
      started_at: null,
      completed_at: null,
      content_version: null,
      record_count: null,
      change_seq_sum: null,
      has_blocking_failures: null,
      has_non_blocking_failures: null,
      result_count: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The batch's latest run that was not cancelled: what GET validate reports. */
export async function latestRun(db: Executor, rto: string, token: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('validation_run')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('status', '<>', 'Cancelled')
    .orderBy('requested_at', 'desc')
    .orderBy('run_id')
    .limit(1)
    .executeTakeFirst()
}

/** The batch's latest completed run: the one whose results are read. */
export async function latestCompletedRun(db: Executor, rto: string, token: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('validation_run')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('status', '=', 'Validated')
    .orderBy('completed_at', 'desc')
    .orderBy('run_id')
    .limit(1)
    .executeTakeFirst()
}

export async function pendingRuns(db: Executor, rto: string, token: string): Promise<RunRow[]> {
  return db
    .selectFrom('validation_run')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('status', 'in', ['Queued', 'InProgress'])
    .orderBy('requested_at', 'desc')
    .execute()
}

// Cross-module read, on purpose: a batch's fingerprint (here and in the lifecycle's claim basis below)
// is read from the view batches publishes for it (batch_fingerprint) in the statement that needs it,
// so a claim and the content it validates are one snapshot (docs/decisions.md, "Architecture: shared
// kernel and module boundaries"; the view: migrations/0020_published_views.ts).
export async function fingerprintOf(db: Executor, rto: string, token: string): Promise<Fingerprint | undefined> {
  if (transactionsRunAlone(db)) return fingerprintByMarker(db, rto, token)
  const result = await sql<Fingerprint>`
    SELECT content_version::text AS content_version, record_count::text AS record_count, change_seq_sum::text AS change_seq_sum
      FROM batch_fingerprint
     WHERE rto_id = ${rto} AND transaction_batch_token = ${token}`.execute(db)
  return result.rows[0]
}

/** Fingerprints kept per embedded database: batch -> the change marker it was computed at, and it. */
const fingerprints = new WeakMap<object, Map<string, { marker: string; fingerprint: Fingerprint }>>()
const KEPT_FINGERPRINTS = 1000

/**
 * The fingerprint on the embedded database, counted once per change of the batch (issue 30: the status
 * of a 100,000-record batch read every record's change number, 0.2 to 0.7 s, each poll). A batch's
 * content changes only by an upload or replacement, which takes a new change number, or a deletion,
 * which raises its content version; there, transactions run one after another, so a number committed
 * later is always higher than every number committed before (on PostgreSQL a transaction that took a
 * lower number may commit after a reader saw a higher one: there the fingerprint is always counted). So
 * while the marker (content version, latest change number: one index probe) is the one a fingerprint
 * was counted at, nothing of the batch changed since and that fingerprint is the batch's. A new marker
 * is read together with its fingerprint, in one statement.
 */
async function fingerprintByMarker(db: Executor, rto: string, token: string): Promise<Fingerprint | undefined> {
  const kept = fingerprints.get(db) ?? new Map<string, { marker: string; fingerprint: Fingerprint }>()
  fingerprints.set(db, kept)
  const key = JSON.stringify([rto, token])
  const { rows: markers } = await sql<{ marker: string }>`
    SELECT content_version::text || ':' || coalesce(last_change_seq::text, '-') AS marker
      FROM batch_change_marker
     WHERE rto_id = ${rto} AND transaction_batch_token = ${token}`.execute(db)
  const marker = markers[0]?.marker
  if (marker === undefined) {
    kept.delete(key)
    return undefined
  }
  const known = kept.get(key)
  if (known?.marker === marker) return known.fingerprint
  const { rows } = await sql<Fingerprint & { marker: string }>`
    SELECT f.content_version::text AS content_version, f.record_count::text AS record_count, f.change_seq_sum::text AS change_seq_sum,
           m.content_version::text || ':' || coalesce(m.last_change_seq::text, '-') AS marker
      FROM batch_fingerprint f
      JOIN batch_change_marker m ON m.rto_id = f.rto_id AND m.transaction_batch_token = f.transaction_batch_token
     WHERE f.rto_id = ${rto} AND f.transaction_batch_token = ${token}`.execute(db)
  const row = rows[0]
  if (!row) return undefined
  const fingerprint = {
    content_version: row.content_version,
    record_count: row.record_count,
    change_seq_sum: row.change_seq_sum,
  }
  kept.delete(key) // the most recent last: the first key is the one longest unasked
  if (kept.size >= KEPT_FINGERPRINTS) kept.delete(kept.keys().next().value!)
  kept.set(key, { marker: row.marker, fingerprint })
  return fingerprint
}

export function sameContent(run: RunRow, fingerprint: Fingerprint | undefined): boolean {
  // Compared as text: the drivers return bigint and numeric as strings or numbers depending on size.
  return (
    fingerprint !== undefined &&
    String(run.content_version) === fingerprint.content_version &&
    String(run.record_count) === fingerprint.record_count &&
    String(run.change_seq_sum) === fingerprint.change_seq_sum
  )
}

/**
 * The run lifecycle (src/platform/runs/run-lifecycle.ts) over validation_run and validation_result. A
 * claim records the batch's fingerprint as it stands then; the attempt validates the batch from it.
 * A run whose batch is gone is not claimed. Validation has no Fault: a technical error fails the job,
 * which the queue retries as a new attempt.
 */
export const validationRuns = createRunLifecycle({
  runTable: 'validation_run',
  resultTable: 'validation_result',
  subjectColumns: ['transaction_batch_token'],
  statuses: { queued: 'Queued', inProgress: 'InProgress', completed: 'Validated', cancelled: 'Cancelled' },
  levelColumn: 'validation_message_level',
  blockingLevel: 'Error',
  basis: {
    set: sql`content_version = f.content_version, record_count = f.record_count, change_seq_sum = f.change_seq_sum`,
    from: sql`batch_fingerprint f`,
    where: sql`f.rto_id = r.rto_id AND f.transaction_batch_token = r.transaction_batch_token`,
  },
})

export async function insertResults(db: Executor, rows: ResultRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('validation_result').values(rows).execute()
}

/**
 * Runs a set rule's query and stores its rows as results, in one statement inside the database, or,
 * with `sliceRows`, found in one statement and written `sliceRows` at a time (sliced-insert.ts: the
 * same rows, in the same order). The planner cannot know how many records one batch holds (a new
 * token is never in its statistics, so it guesses a handful) and then picks nested loops that grow
 * with the square of a large batch. For a large batch, nested loops are switched off for this
 * statement, leaving hash and merge joins, which grow linearly; a small batch keeps the planner's
 * choice (index look-ups into held data). JIT compilation is off too: these many-branch statements
 * cost seconds to compile and run in less.
 */
export async function insertSetRuleResults(
  db: Db,
  rule: SetRule,
  scope: RunScope,
  runId: string,
  attempt: number,
  largeBatch: boolean,
  query: RawBuilder<SetFindingRow> = rule.query(scope),
  sliceRows?: number,
  order: RawBuilder<unknown> = SET_RULE_RESULT_ORDER,
): Promise<void> {
  if (sliceRows !== undefined) {
    await insertInSlices(
      db,
      {
        table: 'validation_result',
        columns: RESULT_COLUMNS,
        rows: sql`SELECT ${setRuleResultValues(rule, scope, runId, attempt)},
                         row_number() OVER (ORDER BY ${order}) AS slice_ord
                    FROM (${query}) AS f`,
        settings: (tx) => setRuleSessionSettings(tx, largeBatch),
        // One write at a time per attempt; the rule and the part are done before the next starts.
        name: `validation_found_${runId.replaceAll('-', '')}_${attempt}`,
      },
      sliceRows,
    )
    return
  }
  await db.transaction().execute(async (tx) => {
    await setRuleSessionSettings(tx, largeBatch)
    await setRuleResultsStatement(rule, scope, runId, attempt, query, order).execute(tx)
  })
}

/**
 * The key slices of the batch's records of one type, `records` records each (the last one open-ended):
 * their boundaries found by probing the batch's key (`OFFSET records - 1 LIMIT 1` after the last
 * boundary, an index range of `records` entries each), each probe its own statement. Slices are
 * (after, upTo] ranges of UIDs; the first has no `after`, the last no `upTo`.
 */
export async function batchKeySlices(
  db: Executor,
  scope: RunScope,
  type: ResourceType,
  records: number,
): Promise<KeySlice[]> {
  const slices: KeySlice[] = []
  let after: string | undefined
  for (;;) {
    const { rows } = await sql<{ uid: string }>`
      SELECT resource_uid::text AS uid FROM batch_content
       WHERE rto_id = ${scope.rto} AND transaction_batch_token = ${scope.token} AND resource_type = ${type}
         AND ${after === undefined ? sql`true` : sql`resource_uid > ${after}::uuid`}
       ORDER BY resource_uid OFFSET ${records - 1}::int LIMIT 1`.execute(db)
    // Fewer than `records` left: the last slice, open-ended (after an exact fit, empty).
    if (rows.length === 0) break
    const upTo = rows[0]!.uid
    slices.push({ type, after, upTo })
    after = upTo
    await yieldToEventLoop()
  }
  slices.push({ type, after })
  return slices
}

/**
 * A set rule's results found in key slices of the batch (the rule's `slicedParts`): each slice of each
 * part one statement (its own transaction, the event loop given a turn before it) into a temporary
 * table of found rows, then stored from that table as `insertSetRuleResults` stores a query's rows: the
 * group counts, grouping ids and order over the whole rule, so the results are the one statement's.
 * `slicesOf` gives a type's key slices (the engine finds them once per run). On PostgreSQL the work
 * runs on one pinned connection (a temporary table lives in one session); on the embedded database
 * there is one session, and pinning it would stop every other request.
 */
export async function insertSetRuleResultsInKeySlices(
  db: Db,
  rule: SetRule,
  scope: RunScope,
  runId: string,
  attempt: number,
  largeBatch: boolean,
  parts: readonly SlicedPart[],
  slicesOf: (type: ResourceType) => Promise<KeySlice[]>,
  sliceRows: number | undefined,
): Promise<void> {
  const name = `validation_pieces_${runId.replaceAll('-', '')}_${attempt}`
  const found = sql.table(`pg_temp.${name}`)
  const run = async (conn: Db) => {
    try {
      await sql`CREATE TEMP TABLE ${sql.id(name)} (part_ord int, group_key text, resource_type text, resource_uid uuid,
                  access_path text[], change_tracking_identifier text, data_source text, message text)`.execute(conn)
      for (const [index, part] of parts.entries()) {
        for (const slice of await slicesOf(part.type)) {
          await yieldToEventLoop()
          await conn.transaction().execute(async (tx) => {
            // The settings of the whole statement: the planner knows no more of a slice than of the batch
            // (no statistics for a new token: one row guessed), and with nested loops allowed it scanned
            // every student of the batch for each reference of a slice on PostgreSQL (a slice of 5,000
            // ran over 5 minutes). Hash joins read the other side once per slice.
            await setRuleSessionSettings(tx, largeBatch)
            await sql`
              INSERT INTO ${found}
              SELECT ${index}::int, f.group_key, f.resource_type, f.resource_uid, f.access_path, f.change_tracking_identifier, f.data_source, f.message
                FROM (${part.query(slice, found)}) AS f`.execute(tx)
          })
        }
      }
      await yieldToEventLoop()
      if (rule.fromPieces) {
        // The rule's groups joined and counted over the pieces, under the rule's settings (nested loops
        // off for a large batch: hash joins over the narrow rows). No ANALYZE of them first: at 100,000
        // records it was itself a statement of 1.5 s on a saturated machine (bench/results.md, sixth session).
        const rows = rule.fromPieces(scope, found)
        await insertSetRuleResults(conn, rule, scope, runId, attempt, largeBatch, rows, sliceRows)
        return
      }
      // A rule with queryParts stores each part's results after the part before (a statement each when
      // not sliced); one without, its results in one order over the whole rule.
      const order = rule.queryParts ? sql`f.part_ord, ${SET_RULE_RESULT_ORDER}` : SET_RULE_RESULT_ORDER
      const rows = sql<SetFindingRow>`SELECT * FROM ${found}`
      await insertSetRuleResults(conn, rule, scope, runId, attempt, false, rows, sliceRows, order)
    } finally {
      await sql`DROP TABLE IF EXISTS ${found}`.execute(conn)
    }
  }
  if (transactionsRunAlone(db)) await run(db)
  else await db.connection().execute(run)
}

/** The settings a set rule's statement runs under, inside its transaction (above). */
export async function setRuleSessionSettings(tx: Executor, largeBatch: boolean): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(tx)
  if (largeBatch) await sql`SET LOCAL enable_nestloop = off`.execute(tx)
}

/** The columns of validation_result a rule's results fill, in the order setRuleResultValues gives them. */
const RESULT_COLUMNS = [
  'rto_id',
  'run_id',
  'attempt',
  'validation_grouping_id',
  'related_validation_result_count',
  'error_number',
  'rule_id',
  'technical_rule_id',
  'validation_message_level',
  'corrective_action',
  'message',
  'resource_type',
  'resource_uid',
  'access_path',
  'change_tracking_identifier',
  'data_source',
] as const

/** The order a rule's results are stored in (their seq): grouped, the batch's own records first. */
const SET_RULE_RESULT_ORDER = sql`f.group_key, f.data_source DESC, f.resource_type, f.resource_uid`

/** A result's columns (RESULT_COLUMNS) from a row f of the rule's query. */
function setRuleResultValues(rule: SetRule, scope: RunScope, runId: string, attempt: number): RawBuilder<unknown> {
  return sql`${scope.rto}::text, ${runId}::uuid, ${attempt}::int, ${nameBasedUuid(sql`${`${runId}:${attempt}:${rule.technicalRuleId}:`}::text || f.group_key`)},
           count(*) OVER (PARTITION BY f.group_key), ${rule.technicalRuleId}::text, ${rule.ruleId}::text, ${rule.technicalRuleId}::text,
           ${rule.level}::text, ${rule.correctiveAction}::text, f.message, f.resource_type, f.resource_uid, f.access_path,
           f.change_tracking_identifier, f.data_source`
}

/** The one statement that runs a set rule's query and stores its rows as results. */
export function setRuleResultsStatement(
  rule: SetRule,
  scope: RunScope,
  runId: string,
  attempt: number,
  query: RawBuilder<SetFindingRow> = rule.query(scope),
  order: RawBuilder<unknown> = SET_RULE_RESULT_ORDER,
): RawBuilder<unknown> {
  return sql`
    INSERT INTO validation_result (${sql.join(RESULT_COLUMNS.map((column) => sql.id(column)))})
    SELECT ${setRuleResultValues(rule, scope, runId, attempt)}
      FROM (${query}) AS f
     ORDER BY ${order}`
}

/** Narrows a run's results: to one rule, one resource type, or both. */
export interface ResultFilter {
  technicalRuleId?: string | undefined
  resourceType?: string | undefined
}

export async function listResults(db: Executor, run: RunRow, limit: number, offset: number, filter: ResultFilter = {}) {
  let query = db
    .selectFrom('validation_result')
    .select([
      'validation_grouping_id',
      'related_validation_result_count',
      'error_number',
      'rule_id',
      'technical_rule_id',
      'validation_message_level',
      'corrective_action',
      'message',
      'resource_type',
      'resource_uid',
      'access_path',
      'change_tracking_identifier',
      'data_source',
    ])
    .where('rto_id', '=', run.rto_id)
    .where('run_id', '=', run.run_id)
    .where('attempt', '=', run.attempt)
  if (filter.technicalRuleId !== undefined) query = query.where('technical_rule_id', '=', filter.technicalRuleId)
  if (filter.resourceType !== undefined) query = query.where('resource_type', '=', filter.resourceType)
  if (offset === 0) return query.orderBy('seq').limit(limit).execute()
  // Unfiltered, a deep page starts from the run's kept key at or before it (every 1,000th result's seq,
  // kept on completion): it counts fewer than 1,000 keys, however deep, where counting from the first
  // result cost a scan of every key before the page. The same rows in the same order.
  const kept = filter.technicalRuleId === undefined && filter.resourceType === undefined
  const anchored = kept ? resultPageStart(run.result_anchors, offset) : undefined
  // The run's result keys, in the primary key's order.
  const keysOfRun = () =>
    db
      .selectFrom('validation_result')
      .select('seq')
      .where('rto_id', '=', run.rto_id)
      .where('run_id', '=', run.run_id)
      .where('attempt', '=', run.attempt)
  if (anchored) {
    const start = keysOfRun().where('seq', '>=', anchored.seq).orderBy('seq').offset(anchored.skip).limit(1)
    return query.where('seq', '>=', start).orderBy('seq').limit(limit).execute()
  }
  // Otherwise (a filter, or a run completed before keys were kept) a deep page starts at the seq the offset lands on, found by a scan of the primary key alone (an
  // index-only scan when unfiltered), rather than by reading and discarding every earlier result's
  // row: the same rows in the same order. Past the end, the start is NULL and the page empty.
  let start = keysOfRun()
  if (filter.technicalRuleId !== undefined) start = start.where('technical_rule_id', '=', filter.technicalRuleId)
  if (filter.resourceType !== undefined) start = start.where('resource_type', '=', filter.resourceType)
  return query.where('seq', '>=', start.orderBy('seq').offset(offset).limit(1)).orderBy('seq').limit(limit).execute()
}

/** How many of a run's results the filter keeps. */
export async function countResults(db: Executor, run: RunRow, filter: ResultFilter): Promise<number> {
  let query = db
    .selectFrom('validation_result')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', run.rto_id)
    .where('run_id', '=', run.run_id)
    .where('attempt', '=', run.attempt)
  if (filter.technicalRuleId !== undefined) query = query.where('technical_rule_id', '=', filter.technicalRuleId)
  if (filter.resourceType !== undefined) query = query.where('resource_type', '=', filter.resourceType)
  return Number((await query.executeTakeFirstOrThrow()).count)
}
