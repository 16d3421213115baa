// SQL that stores a validation attempt's results: a record rule's rows, and a set rule's results
// found inside the database (in one statement, in row slices, or over key slices of the batch). Every
// statement is scoped by the caller's RTO.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql, type RawBuilder } from 'kysely'
import type { Db, Executor } from '../../platform/db/database.ts'
import { nameBasedUuid } from '../../platform/db/uuid.ts'
import { insertInSlices } from '../../platform/db/sliced-insert.ts'
import { withTempTable } from '../../platform/db/temp-tables.ts'
import type { KeySlice, RunScope, SetFindingRow, SetRule, SlicedPart } from './rule.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import { RESULT_FIELDS, type ResultRow } from './validation.tables.ts'

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
        // The found rows as the query gives them, with their group's size and their place; the
        // result's other columns computed as each slice is written.
        rows: sql`SELECT f.group_key, f.resource_type, f.resource_uid, f.access_path, f.change_tracking_identifier,
                         f.data_source, f.message, count(*) OVER (PARTITION BY f.group_key) AS group_count,
                         row_number() OVER (ORDER BY ${order}) AS slice_ord
                    FROM (${query}) AS f`,
        values: setRuleResultValues(rule, scope, runId, attempt, sql`f.group_count`),
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
  const columns = sql`part_ord int, group_key text, resource_type text, resource_uid uuid, access_path text[],
                      change_tracking_identifier text, data_source text, message text`
  await withTempTable(db, name, columns, async (conn, found) => {
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
  })
}

/** The settings a set rule's statement runs under, inside its transaction (above). */
export async function setRuleSessionSettings(tx: Executor, largeBatch: boolean): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(tx)
  if (largeBatch) await sql`SET LOCAL enable_nestloop = off`.execute(tx)
}

/** The columns of validation_result a rule's results fill, in the order setRuleResultValues gives them. */
const RESULT_COLUMNS = ['rto_id', 'run_id', 'attempt', ...RESULT_FIELDS] as const

/** The order a rule's results are stored in (their seq): grouped, the batch's own records first. */
const SET_RULE_RESULT_ORDER = sql`f.group_key, f.data_source DESC, f.resource_type, f.resource_uid`

/**
 * A result's columns (RESULT_COLUMNS) from a row f of the rule's query; its group's size counted over
 * the query's rows, or read from `groupCount` when counted before.
 */
function setRuleResultValues(
  rule: SetRule,
  scope: RunScope,
  runId: string,
  attempt: number,
  groupCount: RawBuilder<unknown> = sql`count(*) OVER (PARTITION BY f.group_key)`,
): RawBuilder<unknown> {
  return sql`${scope.rto}::text, ${runId}::uuid, ${attempt}::int, ${nameBasedUuid(sql`${`${runId}:${attempt}:${rule.technicalRuleId}:`}::text || f.group_key`)},
           ${groupCount}, ${rule.technicalRuleId}::text, ${rule.ruleId}::text, ${rule.technicalRuleId}::text,
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
