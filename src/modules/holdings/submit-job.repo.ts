// SQL for the console's submits as queued jobs: one row per press of Submit, from Queued through
// Running (with its stage) to Submitted (what was submitted) or Failed (the refusal). Every query names
// the RTO. The row is marked Submitted inside the submit's own transaction (the caller passes it).
import { sql, type Generated } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import type { SubmittedBatch } from './holdings.schemas.ts'

export type SubmitJobStatus = 'Queued' | 'Running' | 'Submitted' | 'Failed'

/** Where a running submit is: checking the batch and its validation, storing its records as held versions, recording the periods and events. */
export type SubmitStage = 'checking' | 'storing' | 'recording'

/** A failed submit's problem: the refusal (its kind, detail and, for a conflict, its reason) as the API would answer it. */
export interface SubmitJobProblem {
  kind: string
  detail: string
  reason?: string
  droppedCount?: number
}

export interface SubmitJobTable {
  rto_id: string
  submit_id: string
  jurisdiction: string
  transaction_batch_token: string
  client_id: string
  acknowledge_dropped: number | null
  status: SubmitJobStatus
  stage: SubmitStage | null
  result: unknown
  problem: unknown
  attempts: Generated<number>
  queued_at: Generated<Date>
  started_at: Date | null
  finished_at: Date | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    submit_job: SubmitJobTable
  }
}

export interface SubmitJobRow {
  submitId: string
  jurisdiction: string
  transactionBatchToken: string
  clientId: string
  acknowledgeDropped: number | null
  status: SubmitJobStatus
  stage: SubmitStage | null
  result: SubmittedBatch | null
  problem: SubmitJobProblem | null
  attempts: number
  queuedAt: string
  startedAt: string | null
  finishedAt: string | null
}

const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())

/**
 * A Queued submit of the batch, or (a second press while one is queued or running: the partial unique
 * index) undefined: nothing inserted, and the caller goes to the one there is.
 */
export async function insertSubmitJob(
  db: Executor,
  row: {
    rto: string
    submitId: string
    jurisdiction: string
    token: string
    clientId: string
    acknowledgeDropped: number | undefined
  },
): Promise<boolean> {
  const inserted = await sql<{ submit_id: string }>`
    INSERT INTO submit_job (rto_id, submit_id, jurisdiction, transaction_batch_token, client_id, acknowledge_dropped, status)
    VALUES (${row.rto}, ${row.submitId}, ${row.jurisdiction}, ${row.token}, ${row.clientId}, ${row.acknowledgeDropped ?? null}, 'Queued')
    ON CONFLICT (rto_id, transaction_batch_token) WHERE status IN ('Queued', 'Running') DO NOTHING
    RETURNING submit_id`.execute(db)
  return inserted.rows.length === 1
}

/** The batch's submit that is queued or running, if any. */
export async function unfinishedSubmitJobOf(db: Executor, rto: string, token: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('submit_job')
    .select('submit_id')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('status', 'in', ['Queued', 'Running'])
    .executeTakeFirst()
  return row?.submit_id
}

export async function findSubmitJob(db: Executor, rto: string, submitId: string): Promise<SubmitJobRow | undefined> {
  const row = await db
    .selectFrom('submit_job')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('submit_id', '=', submitId)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    submitId: row.submit_id,
    jurisdiction: row.jurisdiction,
    transactionBatchToken: row.transaction_batch_token,
    clientId: row.client_id,
    acknowledgeDropped: row.acknowledge_dropped,
    status: row.status,
    stage: row.stage,
    result: row.result === null ? null : json<SubmittedBatch>(row.result),
    problem: row.problem === null ? null : json<SubmitJobProblem>(row.problem),
    attempts: Number(row.attempts),
    queuedAt: iso(row.queued_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  }
}

/**
 * Marks a submit that has not finished Running (again, after a worker died: a redelivery) and counts
 * the attempt; undefined once it has finished, so a redelivered job does nothing.
 */
export async function startSubmitJob(db: Executor, rto: string, submitId: string): Promise<SubmitJobRow | undefined> {
  const row = await db
    .updateTable('submit_job')
    .set({ status: 'Running', stage: 'checking', started_at: sql`now()`, attempts: sql`attempts + 1` })
    .where('rto_id', '=', rto)
    .where('submit_id', '=', submitId)
    .where('status', 'in', ['Queued', 'Running'])
    .returning('submit_id')
    .executeTakeFirst()
  return row ? findSubmitJob(db, rto, submitId) : undefined
}

export async function recordSubmitStage(
  db: Executor,
  rto: string,
  submitId: string,
  stage: SubmitStage,
): Promise<void> {
  await db
    .updateTable('submit_job')
    .set({ stage })
    .where('rto_id', '=', rto)
    .where('submit_id', '=', submitId)
    .where('status', '=', 'Running')
    .execute()
}

/** The submit's end: what was submitted (in the submit's transaction), or its refusal. */
export async function finishSubmitJob(
  db: Executor,
  rto: string,
  submitId: string,
  outcome: { result: SubmittedBatch } | { problem: SubmitJobProblem },
): Promise<void> {
  await db
    .updateTable('submit_job')
    .set({
      status: 'result' in outcome ? 'Submitted' : 'Failed',
      stage: null,
      result: 'result' in outcome ? JSON.stringify(outcome.result) : null,
      problem: 'problem' in outcome ? JSON.stringify(outcome.problem) : null,
      finished_at: sql`now()`,
    })
    .where('rto_id', '=', rto)
    .where('submit_id', '=', submitId)
    .where('status', 'in', ['Queued', 'Running'])
    .execute()
}
