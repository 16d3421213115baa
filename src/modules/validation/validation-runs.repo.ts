// SQL for validation runs: a run's row (requested, latest, pending), the batch fingerprint a run is
// compared with, and the run lifecycle over validation_run and validation_result. Every statement is
// scoped by the caller's RTO.
import { sql } from 'kysely'
import { transactionsRunAlone, type Executor } from '../../platform/db/database.ts'
import { integerArray } from '../../platform/db/sql-arrays.ts'
import { createRunLifecycle } from '../../platform/runs/run-lifecycle.ts'
import type { RunRow } from './validation.tables.ts'

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

/**
 * Keeps the reporting periods of the batch's activity dates on the attempt that completed: what submit
 * records for assessments without reading the batch again.
 */
export async function keepActivityPeriods(
  tx: Executor,
  rto: string,
  runId: string,
  attempt: number,
  periods: readonly number[],
): Promise<void> {
  await sql`
    UPDATE validation_run SET activity_periods = ${integerArray([...periods].sort((a, b) => a - b))}
     WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt = ${attempt}`.execute(tx)
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
