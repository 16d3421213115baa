// A rule's results written from pieces of the working copy (issue 30: the embedded database stays
// responsive): the rows of a sliced rule found slice by slice, or a keyed rule's narrow rows read slice by
// slice, each into a temporary table; then stored from it by the one writer of results
// (assessment.repo.ts, insertRuleResults), so the stored rows, order and groups are the whole rule's.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql } from 'kysely'
import type { Db } from '../../platform/db/database.ts'
import { withTempTable, withTempTables } from '../../platform/db/temp-tables.ts'
import type { AssessmentFindingRow, AssessmentRule, KeyRow } from './assessment-rule.ts'
import { insertRuleResults } from './assessment.repo.ts'
import { forEachStagedSlice, type Staged } from './assessment.stage.ts'

/**
 * A rule's results found in key slices of the working copy (AssessmentRule.sliced): each slice one
 * statement (assessment.stage.ts, forEachStagedSlice) into a temporary table, then stored from it as
 * `insertRuleResults` stores the rule's query: the same rows in the same order and groups.
 */
export async function insertRuleResultsInKeySlices(
  db: Db,
  rule: AssessmentRule & { sliced: NonNullable<AssessmentRule['sliced']> },
  scope: Staged,
  runId: string,
  attempt: number,
  sliceRecords: number,
  sliceRows?: number,
): Promise<void> {
  const columns = sql`group_key text, resource_type text, resource_uid uuid, change_tracking_identifier text,
                      submitted_by_client text, message text`
  const name = `assessment_pieces_${runId.replaceAll('-', '')}_${attempt}`
  await withTempTable(db, name, columns, async (conn, pieces) => {
    await forEachStagedSlice(
      conn,
      scope,
      rule.sliced.type,
      sliceRecords,
      (slice) => sql`
        INSERT INTO ${pieces}
        SELECT f.group_key, f.resource_type, f.resource_uid, f.change_tracking_identifier, f.submitted_by_client, f.message
          FROM (${rule.sliced.query(scope, slice)}) AS f`,
    )
    await yieldToEventLoop()
    const found = sql<AssessmentFindingRow>`SELECT * FROM ${pieces}`
    await insertRuleResults(conn, rule, scope, runId, attempt, sliceRows, found)
  })
}

/**
 * A keyed rule's results (AssessmentRule.keyed): each piece's narrow rows read in key slices of the
 * working copy into a temporary table of its own, then the rule's query over those tables alone, stored
 * as `insertRuleResults` stores it.
 */
export async function insertKeyedRuleResults(
  db: Db,
  rule: AssessmentRule & { keyed: NonNullable<AssessmentRule['keyed']> },
  scope: Staged,
  runId: string,
  attempt: number,
  sliceRecords: number,
  sliceRows?: number,
): Promise<void> {
  const columns = sql`uid uuid, change_tracking_identifier text, client text, key text, in_period boolean`
  const names = rule.keyed.pieces.map((_, i) => `assessment_keys_${runId.replaceAll('-', '')}_${attempt}_${i}`)
  await withTempTables(db, names, columns, async (conn, tables) => {
    for (const [i, piece] of rule.keyed.pieces.entries())
      await forEachStagedSlice(
        conn,
        scope,
        piece.type,
        sliceRecords,
        (slice) => sql`
          INSERT INTO ${tables[i]} (uid, change_tracking_identifier, client, key, in_period)
          SELECT k.uid, k.change_tracking_identifier, k.client, k.key, k.in_period FROM (${piece.keys(scope, slice)}) AS k`,
      )
    await yieldToEventLoop()
    const found = rule.keyed.query(
      scope,
      tables.map((table) => sql<KeyRow>`(SELECT * FROM ${table})`),
    )
    await insertRuleResults(conn, rule, scope, runId, attempt, sliceRows, found)
  })
}
