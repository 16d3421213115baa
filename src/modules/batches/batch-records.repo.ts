// SQL for the records held in a transaction batch: one row per resource, its whole JSON body
// (child objects included), replaced as a whole on re-upload.
import { sql, type Selectable } from 'kysely'
import type { Db, Executor } from '../../platform/db/database.ts'
import { preparedAs } from '../../platform/db/prepared-statements.ts'
import type { AuditInStatement } from '../../platform/db/audit-in-statement.ts'

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

/**
 * A batch's records by type, kept as deltas (migration 0036): triggers on batch_record add a row per
 * batch and type each writing statement touched, and fold them now and then. Only the triggers write it
 * (and discard, which deletes the batch's rows); readers sum a batch's rows.
 */
export interface BatchRecordCountTable {
  rto_id: string
  transaction_batch_token: string
  resource_type: string
  delta_id: import('kysely').Generated<string>
  record_count: string
  change_seq_sum: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    batch_record: BatchRecordTable
    batch_record_count: BatchRecordCountTable
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
export async function upsertRecord(
  db: Executor,
  upload: RecordUpload,
  audit?: AuditInStatement,
): Promise<'created' | 'replaced' | undefined> {
  const call = sql`upload_batch_record(${upload.rto}, ${upload.token}, ${upload.jurisdiction ?? null}::text, ${upload.resourceType},
                                      ${upload.resourceUID}::uuid, ${upload.changeTrackingIdentifier}::text, ${upload.isVoided},
                                      ${JSON.stringify(upload.body)}::jsonb, ${upload.clientId})`
  // With the request's audit entry: written by the same statement once the record is (201 created, 200
  // replaced; nothing when no open batch), so the upload is one round trip and commits with its entry.
  // The subquery is not flattened (OFFSET 0), so the record is written before the entry.
  const result = audit
    ? await sql<{ created: boolean | null }>`${sql.raw(preparedAs('upload_batch_record_audited'))}
        SELECT created, ${audit(sql`CASE WHEN created THEN 201 WHEN NOT created THEN 200 END`)} AS audited
          FROM (SELECT ${call} AS created OFFSET 0) AS upload`.execute(db)
    : await sql<{ created: boolean | null }>`${sql.raw(preparedAs('upload_batch_record'))}
        SELECT ${call} AS created`.execute(db)
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

/** The bodies of the named records of a batch (those it has), in one read. */
export async function findRecords(
  db: Executor,
  rto: string,
  token: string,
  keys: { resourceType: string; resourceUID: string }[],
): Promise<Pick<BatchRecordRow, 'resource_type' | 'resource_uid' | 'body'>[]> {
  if (keys.length === 0) return []
  return db
    .selectFrom('batch_record')
    .select(['resource_type', 'resource_uid', 'body'])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .where((eb) =>
      eb.or(
        keys.map((key) =>
          eb.and([eb('resource_type', '=', key.resourceType), eb('resource_uid', '=', key.resourceUID)]),
        ),
      ),
    )
    .execute()
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

/**
 * The batch's records by type: the sums of its kept deltas (batch_record_count, migration 0036), a
 * few index rows, where counting the records read one index entry per record (48 to 61 ms per view
 * for a 110,000-record batch). The same snapshot as the records, so the same answer as a fresh count.
 */
export async function countRecordsByType(db: Executor, rto: string, token: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('batch_record_count')
    .select(['resource_type', (eb) => eb.fn.sum<string>('record_count').as('count')])
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .groupBy('resource_type')
    .having((eb) => eb.fn.sum('record_count'), '<>', 0)
    .execute()
  return new Map(rows.map((row) => [row.resource_type, Number(row.count)]))
}

/**
 * When the batch's records last changed by upload (deletions move the batch's own updated_at): the
 * upload time of the record with the latest change number, one probe of batch_record_by_change
 * rather than reading every record. Change numbers are taken in upload order, so this is the latest
 * upload but for uploads of concurrent transactions, whose times differ by their transactions' starts.
 */
export async function lastUpload(db: Executor, rto: string, token: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('batch_record')
    .select('uploaded_at')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .orderBy('change_seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? new Date(row.uploaded_at) : undefined
}

export interface RecordChunkRow {
  resource_type: string
  resource_uid: string
  change_tracking_identifier: string | null
  body: unknown
}

/**
 * A chunk is read in the primary key's order from the primary key, whatever the statistics say. A
 * batch loaded since batch_record's statistics were taken (always on the embedded database, which has
 * no autovacuum to take them) was guessed at a handful of rows, and the chunk planned as a read of every
 * record of the batch, bodies included, sorted for the first 500: 100 to 450 ms at 100,000 records
 * with the embedded database's only connection and the service's thread held, and the page cache
 * filled with the batch (issue 30). Analysing the table first took longer (125 to 880 ms).
 */
export async function chunkReadSettings(tx: Executor): Promise<void> {
  // One round trip: SET LOCAL, as set_config(..., true), for the rest of the chunk's transaction.
  await sql`SELECT set_config('enable_sort', 'off', true), set_config('enable_incremental_sort', 'off', true)`.execute(
    tx,
  )
}

/** The next chunk of the batch's records after a (type, uid) key (none: from the first), in that order. */
export function recordsAfterQuery(
  db: Executor,
  rto: string,
  token: string,
  after: { type: string; uid: string } | undefined,
  limit: number,
) {
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
}

/** The next chunk of the batch's records after a (type, uid) key: for reading a large batch in flat memory. */
export async function recordsAfter(
  db: Db,
  rto: string,
  token: string,
  after: { type: string; uid: string } | undefined,
  limit: number,
): Promise<RecordChunkRow[]> {
  return db.transaction().execute(async (tx) => {
    await chunkReadSettings(tx)
    return recordsAfterQuery(tx, rto, token, after, limit).execute()
  })
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

/**
 * Share-locks the caller's open batch (FOR KEY SHARE, as upload_batch_record does) for the rest of the
 * transaction: uploads run side by side, a submit (FOR UPDATE) waits for them. False when the batch is
 * missing, of another jurisdiction, or submitted.
 */
export async function shareLockOpenBatch(
  tx: Executor,
  rto: string,
  token: string,
  jurisdiction: string | undefined,
): Promise<boolean> {
  const result = await sql<{ found: number }>`${sql.raw(preparedAs('share_lock_open_batch'))}
    SELECT 1 AS found FROM transaction_batch
    WHERE rto_id = ${rto} AND transaction_batch_token = ${token} AND status = 'NotSubmitted'
      AND (${jurisdiction ?? null}::text IS NULL OR jurisdiction = ${jurisdiction ?? null}::text)
    FOR KEY SHARE`.execute(tx)
  return result.rows.length === 1
}

/** One row of a set-based upload: a record's identity, void flag and body as JSON. */
export interface UpsertRow {
  t: string
  u: string
  c: string | null
  v: boolean
  b: unknown
}

/**
 * Creates or replaces many records in one statement, as upload_batch_record does for one. The bodies
 * travel as one JSON array and the identities as arrays, zipped back into rows in their order by one
 * ROWS FROM scan (the same on PostgreSQL and PGlite). Bodies arrive as elements of a jsonb array rather
 * than as a field of jsonb_to_recordset's rows, which copied each body once more (54 against 70 us of
 * the database's CPU per 2 KB Student, measured for issue 19). No two rows may name the same record (ON
 * CONFLICT touches a row once per statement). The caller holds the batch's share lock. Answers which
 * records were created (not there before), by type and UID.
 */
export async function upsertRecords(
  tx: Executor,
  batch: { rto: string; token: string; clientId: string },
  rows: readonly UpsertRow[],
): Promise<{ resource_type: string; resource_uid: string; created: boolean }[]> {
  const bodies = JSON.stringify(rows.map((row) => row.b))
  const result = await sql<{ resource_type: string; resource_uid: string; created: boolean }>`${sql.raw(
    preparedAs('upsert_batch_records'),
  )}
    INSERT INTO batch_record AS r (rto_id, transaction_batch_token, resource_type, resource_uid, change_tracking_identifier,
                                   is_voided, body, uploaded_by_client, uploaded_at)
    SELECT ${batch.rto}, ${batch.token}, x.t, x.u, x.c, x.v, x.b, ${batch.clientId}, now()
    FROM ROWS FROM (jsonb_array_elements(${bodies}::jsonb), unnest(${rows.map((row) => row.t)}::text[]),
                    unnest(${rows.map((row) => row.u)}::uuid[]), unnest(${rows.map((row) => row.c)}::text[]),
                    unnest(${rows.map((row) => row.v)}::boolean[])) AS x(b, t, u, c, v)
    ON CONFLICT (rto_id, transaction_batch_token, resource_type, resource_uid) DO UPDATE
      SET change_tracking_identifier = excluded.change_tracking_identifier, is_voided = excluded.is_voided,
          body = excluded.body, uploaded_by_client = excluded.uploaded_by_client, uploaded_at = excluded.uploaded_at,
          change_seq = excluded.change_seq
    RETURNING r.resource_type, r.resource_uid::text AS resource_uid, (r.xmax = 0) AS created`.execute(tx)
  return result.rows
}
