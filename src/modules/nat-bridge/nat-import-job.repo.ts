// SQL for NAT imports as queued jobs: one row per POST .../nat-import, from Queued to Completed (the
// batch it made) or Failed (its problem), with its progress while it runs. Every query names the RTO.
import { sql, type Generated } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'

export type NatImportJobStatus = 'Queued' | 'Running' | 'Completed' | 'Failed'

/** What an import has done so far: files and lines read, records stored. */
export interface NatImportProgress {
  stage?: 'reading' | 'storing' | 'done'
  filesRead?: number
  linesRead?: number
  recordsMapped?: number
  recordsStored?: number
}

/** A failed import's problem: the domain error the synchronous answer would have been. */
export interface NatImportJobProblem {
  kind: string
  detail: string
}

export interface NatImportJobTable {
  rto_id: string
  import_id: string
  jurisdiction: string
  client_id: string
  zip: Uint8Array | null
  status: NatImportJobStatus
  progress: Generated<unknown>
  transaction_batch_token: string | null
  problem: unknown
  queued_at: Generated<Date>
  started_at: Date | null
  finished_at: Date | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    nat_import_job: NatImportJobTable
  }
}

export interface NatImportJobRow {
  importId: string
  jurisdiction: string
  clientId: string
  status: NatImportJobStatus
  progress: NatImportProgress
  transactionBatchToken: string | null
  problem: NatImportJobProblem | null
  queuedAt: string
  startedAt: string | null
  finishedAt: string | null
}

const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())

export async function insertNatImportJob(
  db: Executor,
  row: { rto: string; importId: string; jurisdiction: string; clientId: string; zip: Uint8Array },
): Promise<void> {
  await db
    .insertInto('nat_import_job')
    .values({
      rto_id: row.rto,
      import_id: row.importId,
      jurisdiction: row.jurisdiction,
      client_id: row.clientId,
      zip: row.zip,
      status: 'Queued',
    })
    .execute()
}

/** The import's status (never its zip); undefined for another RTO's or no such import. */
export async function findNatImportJob(
  db: Executor,
  rto: string,
  importId: string,
): Promise<NatImportJobRow | undefined> {
  const row = await db
    .selectFrom('nat_import_job')
    .select([
      'import_id',
      'jurisdiction',
      'client_id',
      'status',
      'progress',
      'transaction_batch_token',
      'problem',
      'queued_at',
      'started_at',
      'finished_at',
    ])
    .where('rto_id', '=', rto)
    .where('import_id', '=', importId)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    importId: row.import_id,
    jurisdiction: row.jurisdiction,
    clientId: row.client_id,
    status: row.status,
    progress: json<NatImportProgress>(row.progress ?? {}),
    transactionBatchToken: row.transaction_batch_token,
    problem: row.problem === null ? null : json<NatImportJobProblem>(row.problem),
    queuedAt: iso(row.queued_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  }
}

/**
 * The zip of an import that has not finished, marking it Running, with the batch an earlier attempt
 * made (a crashed attempt's, to discard); undefined once it has finished.
 */
export async function startNatImportJob(
  db: Executor,
  rto: string,
  importId: string,
): Promise<{ zip: Uint8Array; jurisdiction: string; clientId: string; earlierBatch: string | null } | undefined> {
  const row = await db
    .updateTable('nat_import_job')
    .set({ status: 'Running', started_at: sql`now()`, progress: JSON.stringify({ stage: 'reading' }) })
    .where('rto_id', '=', rto)
    .where('import_id', '=', importId)
    .where('status', 'in', ['Queued', 'Running'])
    .returning(['zip', 'jurisdiction', 'client_id', 'transaction_batch_token'])
    .executeTakeFirst()
  if (!row?.zip) return undefined
  return {
    zip: row.zip,
    jurisdiction: row.jurisdiction,
    clientId: row.client_id,
    earlierBatch: row.transaction_batch_token,
  }
}

/** The batch a Running attempt has made, kept until the import ends so a crashed attempt's can be discarded. */
export async function recordNatImportBatch(db: Executor, rto: string, importId: string, token: string): Promise<void> {
  await db
    .updateTable('nat_import_job')
    .set({ transaction_batch_token: token })
    .where('rto_id', '=', rto)
    .where('import_id', '=', importId)
    .where('status', '=', 'Running')
    .execute()
}

export async function recordNatImportProgress(
  db: Executor,
  rto: string,
  importId: string,
  progress: NatImportProgress,
): Promise<void> {
  await db
    .updateTable('nat_import_job')
    .set({ progress: JSON.stringify(progress) })
    .where('rto_id', '=', rto)
    .where('import_id', '=', importId)
    .where('status', '=', 'Running')
    .execute()
}

/** The import's end: the batch it made, or its problem. The zip goes (the batch's nat_import keeps it). */
export async function finishNatImportJob(
  db: Executor,
  rto: string,
  importId: string,
  outcome:
    | { token: string; progress: NatImportProgress }
    | { problem: NatImportJobProblem; progress: NatImportProgress },
): Promise<void> {
  await db
    .updateTable('nat_import_job')
    .set({
      status: 'token' in outcome ? 'Completed' : 'Failed',
      transaction_batch_token: 'token' in outcome ? outcome.token : null,
      problem: 'problem' in outcome ? JSON.stringify(outcome.problem) : null,
      progress: JSON.stringify(outcome.progress),
      zip: null,
      finished_at: sql`now()`,
    })
    .where('rto_id', '=', rto)
    .where('import_id', '=', importId)
    .execute()
}
