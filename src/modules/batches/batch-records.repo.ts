// SQL for the records held in a transaction batch: one row per resource, its whole JSON body
// (child objects included), replaced as a whole on re-upload.
import { sql, type Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import { preparedAs } from '../../platform/db/prepared-statements.ts'

export interface BatchRecordTable {
  rto_id: string
  transaction_batch_token: string
  resource_type: string
  resource_uid: string
  change_tracking_identifier: string | null
  is_voided: boolean
  body: unknown
  uploaded_by_client: string
  uploaded_at: Date
  change_seq: import('kysely').Generated<string>
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    batch_record: BatchRecordTable
  }
}

export type BatchRecordRow = Selectable<BatchRecordTable>

export interface RecordUpload {
  rto: string
  token: string
  /** When given, the batch must be of this jurisdiction (the route's segment). */
  jurisdiction: string | undefined
  resourceType: string
  resourceUID: string
  changeTrackingIdentifier: string | null
  isVoided: boolean
  body: unknown
  clientId: string
}

/**
 * Creates or replaces a record, only while the batch is open: the hot path of uploading, one round
 * trip to the function upload_batch_record (migration 0013), which share-locks the open batch row
 * (FOR KEY SHARE) so that concurrent uploads to one batch do not queue on it, while a submit
 * (FOR UPDATE) still waits for them. Prepared once per connection on PostgreSQL.
 * Returns undefined when the batch is missing, of another jurisdiction, or submitted.
 */
export async function upsertRecord(db: Executor, upload: RecordUpload): Promise<'created' | 'replaced' | undefined> {
  const result = await sql<{ created: boolean | null }>`${sql.raw(preparedAs('upload_batch_record'))}
    SELECT upload_batch_record(${upload.rto}, ${upload.token}, ${upload.jurisdiction ?? null}::text, ${upload.resourceType},
                               ${upload.resourceUID}::uuid, ${upload.changeTrackingIdentifier}::text, ${upload.isVoided},
                               ${JSON.stringify(upload.body)}::jsonb, ${upload.clientId}) AS created`.execute(db)
  const created = result.rows[0]?.created
  return created === null || created === undefined ? undefined : created ? 'created' : 'replaced'
}

export async function findRecord(
  db: Executor,
  rto: string,
  token: string,
  resourceType: string,
  resourceUID: string,
): Promise<BatchRecordRow | undefined> {
  return db
    .selectFrom('batch_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .executeTakeFirst()
}

export async function countRecords(db: Executor, rto: string, token: string, resourceType: string): Promise<number> {
  const row = await db
    .selectFrom('batch_record')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('resource_type', '=', resourceType)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function listRecords(
  db: Executor,
  rto: string,
  token: string,
  resourceType: string,
  limit: number,
  offset: number,
): Promise<unknown[]> {
  const rows = await db
    .selectFrom('batch_record')
    .select('body')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('resource_type', '=', resourceType)
    .orderBy('resource_uid')
    .limit(limit)
    .offset(offset)
    .execute()
  return rows.map((row) => row.body)
}

export async function deleteRecord(
  db: Executor,
  rto: string,
  token: string,
  resourceType: string,
  resourceUID: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('batch_record')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}

export async function countRecordsByType(db: Executor, rto: string, token: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('batch_record')
    .select(['resource_type', (eb) => eb.fn.countAll<string>().as('count')])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .groupBy('resource_type')
    .execute()
  return new Map(rows.map((row) => [row.resource_type, Number(row.count)]))
}

/** When the batch's records last changed by upload (deletions move the batch's own updated_at). */
export async function lastUpload(db: Executor, rto: string, token: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('batch_record')
    .select((eb) => eb.fn.max('uploaded_at').as('latest'))
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .executeTakeFirst()
  return row?.latest ? new Date(row.latest) : undefined
}

export interface RecordChunkRow {
  resource_type: string
  resource_uid: string
  change_tracking_identifier: string | null
  body: unknown
}

/** The next chunk of the batch's records after a (type, uid) key: for reading a large batch in flat memory. */
export async function recordsAfter(
  db: Executor,
  rto: string,
  token: string,
  after: { type: string; uid: string } | undefined,
  limit: number,
): Promise<RecordChunkRow[]> {
  return db
    .selectFrom('batch_record')
    .select(['resource_type', 'resource_uid', 'change_tracking_identifier', 'body'])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .$if(after !== undefined, (query) =>
      query.where((eb) => eb(eb.refTuple('resource_type', 'resource_uid'), '>', eb.tuple(after!.type, after!.uid))),
    )
    .orderBy('resource_type')
    .orderBy('resource_uid')
    .limit(limit)
    .execute()
}

/** Inserts many records at once, a thousand per statement: the bulk path, without upload's checks. */
export async function insertRecords(db: Executor, rows: Omit<BatchRecordTable, 'change_seq'>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto('batch_record')
      .values(rows.slice(i, i + 1000))
      .execute()
  }
}
