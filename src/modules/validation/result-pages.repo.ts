// SQL that reads a completed run's results for the result pages: a page of them, whole or filtered
// by rule and resource type, and how many the filter keeps. Every statement is scoped by the caller's RTO.
import type { Executor } from '../../platform/db/database.ts'
import { resultPageStart } from '../../platform/runs/run-lifecycle.ts'
import { RESULT_FIELDS, type RunRow } from './validation.tables.ts'

/** Narrows a run's results: to one rule, one resource type, or both. */
export interface ResultFilter {
  technicalRuleId?: string | undefined
  resourceType?: string | undefined
}

export async function listResults(db: Executor, run: RunRow, limit: number, offset: number, filter: ResultFilter = {}) {
  let query = db
    .selectFrom('validation_result')
    .select(RESULT_FIELDS)
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
