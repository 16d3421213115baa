// The records of a transaction batch, as other modules use them: upload (one record, or many in one
// transaction: the bulk upload), read, list and delete one resource type's records for the caller
// (resources), read a whole batch in chunks (validation), and load a batch in bulk (synthetic data).
// Every change goes through the batch's open state; the SQL is batch-records.repo.ts's.
import type { Db } from '../../platform/db/database.ts'
import type { AuditInStatement } from '../../platform/db/audit-in-statement.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { NotFoundError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import * as records from './batch-records.repo.ts'
import { insertBatch, touchBatch } from './batches.repo.ts'
import { assertOpen, lockOpenBatch, requireBatch, type BatchRef } from './batches.service.ts'

export type { RecordChunkRow } from './batch-records.repo.ts'

/** One record as uploaded: its identity, whether it voids a held record, and its whole body. */
export interface RecordToUpload {
  resourceType: ResourceType
  resourceUID: string
  changeTrackingIdentifier: string | null
  isVoided: boolean
  body: unknown
}

/**
 * Creates or replaces the record in the caller's open batch: true when created, false when it replaced
 * the batch's earlier version; 404 or 409 when there is no such open batch. With `audit`, the request's
 * audit entry is written by the same statement (status 201 created, 200 replaced), and only then.
 */
export async function uploadRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  record: RecordToUpload,
  audit?: AuditInStatement,
): Promise<boolean> {
  const outcome = await records.upsertRecord(
    db,
    { rto: actor.rto, token: ref.token, jurisdiction: ref.jurisdiction, ...record, clientId: actor.clientId },
    audit,
  )
  if (!outcome) assertOpen(await requireBatch(db, actor, ref)) // throws 404 or 409: the statement found no open batch
  return outcome === 'created'
}

/** Most rows per statement of a bulk upload: about 2 MB of JSON for 2 KB records. */
const UPSERT_CHUNK = 1000

/**
 * The bulk upload: many records into the caller's open batch in one transaction, with the outcome
 * of N single uploads in the given order. The records come in chunks, in order, as the caller checks
 * them; each chunk is written while the next is produced (on PostgreSQL the database works while the
 * caller checks). Each record answers 'created' or 'replaced' as its own upload would have (a later
 * record with the same type and UID replaces an earlier one, so it is 'replaced' and only the last is
 * stored). Nothing is stored unless everything is: an error from the chunks (a refused record) rolls
 * the transaction back; with no such open batch every chunk is still drawn, so the caller's own
 * refusal comes first, then 404 or 409 as for one upload.
 */
export async function uploadRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  chunks: AsyncIterable<readonly RecordToUpload[]>,
): Promise<('created' | 'replaced')[]> {
  // UIDs compare as UUIDs: case does not count.
  const keyOf = (upload: RecordToUpload) => `${upload.resourceType}/${upload.resourceUID.toLowerCase()}`
  const outcomes: ('created' | 'replaced')[] = []
  const batch = { rto: actor.rto, token: ref.token, clientId: actor.clientId }
  await db.transaction().execute(async (tx) => {
    const open = await records.shareLockOpenBatch(tx, actor.rto, ref.token, ref.jurisdiction)
    const write = async (chunk: readonly RecordToUpload[]) => {
      // One statement may not touch a row twice: the last upload of each record in the chunk is written.
      const keys = chunk.map(keyOf)
      const last = new Map<string, number>()
      for (const [index, key] of keys.entries()) last.set(key, index)
      const rows: records.UpsertRow[] = [...last.values()].map((index) => {
        const upload = chunk[index]!
        const { resourceType: t, resourceUID: u, changeTrackingIdentifier: c, isVoided: v, body: b } = upload
        return { t, u, c, v, b }
      })
      const created = new Set<string>()
      for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
        for (const row of await records.upsertRecords(tx, batch, rows.slice(i, i + UPSERT_CHUNK))) {
          if (row.created) created.add(`${row.resource_type}/${row.resource_uid}`)
        }
      }
      // A record new to the batch is created by its first upload in the request; every later one
      // replaces. A later chunk's upload of it finds the row an earlier chunk wrote (not created), so
      // only this chunk's keys are remembered: not one key a record of the whole request (141,464
      // records: about 14 MB of the service's heap held until the commit).
      const written = new Set<string>()
      for (const key of keys) {
        outcomes.push(!written.has(key) && created.has(key) ? 'created' : 'replaced')
        written.add(key)
      }
    }
    // One statement at a time on the transaction's connection; the next chunk is drawn meanwhile.
    let writing: Promise<void> | undefined
    try {
      for await (const chunk of chunks) {
        await writing
        if (!open) continue
        writing = write(chunk)
        writing.catch(() => {}) // awaited on the next turn, or below
      }
      await writing
    } finally {
      await writing?.catch(() => {})
    }
    if (!open) assertOpen(await requireBatch(tx, actor, ref)) // throws 404 or 409: no open batch
  })
  return outcomes
}

/** The body of one record of the caller's batch; 404 when the batch or the record is not there. */
export async function readRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  resourceType: ResourceType,
  resourceUID: string,
): Promise<unknown> {
  await requireBatch(db, actor, ref)
  const row = await records.findRecord(db, actor.rto, ref.token, resourceType, resourceUID)
  if (!row) throw new NotFoundError(`No ${resourceType} ${resourceUID} in transaction batch ${ref.token}.`)
  return row.body
}

/**
 * The bodies of the named records of the caller's batch, keyed `<type>/<uid>` (lower-case UID), in
 * one read; a record the batch does not have is left out.
 */
export async function readRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  keys: { resourceType: string; resourceUID: string }[],
): Promise<Map<string, unknown>> {
  await requireBatch(db, actor, ref)
  const rows = await records.findRecords(db, actor.rto, ref.token, keys)
  return new Map(rows.map((row) => [`${row.resource_type}/${String(row.resource_uid).toLowerCase()}`, row.body]))
}

/** A page of one resource type's record bodies in the caller's batch, in UID order. */
export async function listRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  resourceType: ResourceType,
  page: PageQuery,
): Promise<Page<unknown>> {
  await requireBatch(db, actor, ref)
  const [total, results] = await Promise.all([
    records.countRecords(db, actor.rto, ref.token, resourceType),
    records.listRecords(db, actor.rto, ref.token, resourceType, page.pageSize, offsetOf(page)),
  ])
  return toPage(results, total, page)
}

/** Removes one record from the caller's open batch; 404 when it is not there, 409 once submitted. */
export async function deleteRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  resourceType: ResourceType,
  resourceUID: string,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await lockOpenBatch(tx, actor, ref)
    if (!(await records.deleteRecord(tx, actor.rto, ref.token, resourceType, resourceUID))) {
      throw new NotFoundError(`No ${resourceType} ${resourceUID} in transaction batch ${ref.token}.`)
    }
    await touchBatch(tx, actor.rto, ref.token)
  })
}

/** The batch's next chunk of records after a (type, uid) key, in that order: a large batch read in flat memory. */
export function recordsOfBatch(
  db: Db,
  rto: string,
  token: string,
  after: { type: string; uid: string } | undefined,
  limit: number,
): Promise<records.RecordChunkRow[]> {
  return records.recordsAfter(db, rto, token, after, limit)
}

/**
 * The bulk path into a batch, for synthetic data (npm run seed:synthetic) and benchmarks: a new batch
 * with all its records, written a thousand at a time without the upload statement. Never reachable
 * over HTTP.
 */
export async function createBatchWithRecords(
  db: Db,
  batch: { rto: string; token: string; jurisdiction: string; clientId: string },
  contents: readonly RecordToUpload[],
): Promise<void> {
  await insertBatch(db, batch)
  const uploadedAt = new Date()
  await records.insertRecords(
    db,
    contents.map((record) => ({
      rto_id: batch.rto,
      transaction_batch_token: batch.token,
      resource_type: record.resourceType,
      resource_uid: record.resourceUID,
      change_tracking_identifier: record.changeTrackingIdentifier,
      is_voided: record.isVoided,
      body: JSON.stringify(record.body),
      uploaded_by_client: batch.clientId,
      uploaded_at: uploadedAt,
    })),
  )
}
