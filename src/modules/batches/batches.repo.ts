// SQL for transaction batches. Every statement is scoped by the caller's RTO.
import { sql, type Expression, type ExpressionBuilder, type Generated, type Selectable, type SqlBool } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { Executor, Reader } from '../../platform/db/database.ts'

export interface TransactionBatchTable {
  rto_id: string
  transaction_batch_token: string
  jurisdiction: string
  status: Generated<'NotSubmitted' | 'Submitted'>
  content_version: Generated<string>
  created_by_client: string
  created_at: Generated<Date>
  updated_at: Generated<Date>
  submitted_at: Date | null
  reconciled_at: Generated<Date | null>
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    transaction_batch: TransactionBatchTable
  }
}

export type BatchRow = Selectable<TransactionBatchTable>

export async function insertBatch(
  db: Executor,
  batch: { rto: string; token: string; jurisdiction: string; clientId: string },
): Promise<BatchRow> {
  return db
    .insertInto('transaction_batch')
    .values({
      rto_id: batch.rto,
      transaction_batch_token: batch.token,
      jurisdiction: batch.jurisdiction,
      created_by_client: batch.clientId,
      submitted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function findBatch(db: Reader, rto: string, token: string): Promise<BatchRow | undefined> {
  return db
    .selectFrom('transaction_batch')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .executeTakeFirst()
}

/** The batch row, locked until the transaction ends: for changes that must not race a submit. */
export async function lockBatch(db: Executor, rto: string, token: string): Promise<BatchRow | undefined> {
  return db
    .selectFrom('transaction_batch')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .forUpdate()
    .executeTakeFirst()
}

/** Which of the RTO's batches a list keeps: a jurisdiction, a status, a token's first characters. */
export interface BatchFilter {
  jurisdiction?: string | undefined
  status?: 'NotSubmitted' | 'Submitted' | undefined
  /** The token's first characters, matched literally (LIKE's wildcards escaped). */
  tokenPrefix?: string | undefined
  /** Words each of which is one of a record's keys (a name, client identifier, USI, code), of a record in the batch. */
  holding?: readonly string[] | undefined
}

/** The filter as the list's queries apply it: the batches holding the words already found (batchesHolding). */
export type ResolvedBatchFilter = Omit<BatchFilter, 'holding'> & { tokens?: readonly string[] | undefined }

/**
 * The keys a batch's record is found by, each `<rto>:<lower-case value>`: the expression of the index
 * batch_record_search (migrations/0031_reported_activity_and_batch_search.ts), written identically, as
 * is its condition on the record types that have keys (written out, not a parameter: the planner
 * uses a partial index only for a condition it can see implies the index's).
 */
const BATCH_SEARCH_KEYS = sql`ARRAY[
      rto_id || ':' || lower(body->>'clientIdentifier'),
      rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
      rto_id || ':' || lower(body->>'familyName'),
      rto_id || ':' || lower(body->>'firstGivenName'),
      rto_id || ':' || lower(body->>'subjectIdentifier'),
      rto_id || ':' || lower(body->>'programIdentifier'),
      rto_id || ':' || lower(body->>'deliveryLocationIdentifier')
    ]`

/**
 * How many matching records a batch search reads at most (issue 32, "Performance": a USI that 100,000
 * records of one batch share read all 100,000 rows, 232 ms of the server's time, to learn one token).
 * A search matching more is answered from the first this many records found, and says so.
 */
export const BATCH_SEARCH_RECORD_LIMIT = 5000

/**
 * The tokens of the RTO's batches that hold a record whose keys include every word: one probe of the
 * search index, the RTO inside each key, reading at most BATCH_SEARCH_RECORD_LIMIT matching records
 * (`complete` false when more match: the tokens are then those of the records read). No rto_id
 * condition beside it (as holdings' record search: the planner would AND in the primary key's rows of
 * the RTO); the list's queries scope to the RTO.
 */
export async function batchesHolding(
  db: Executor,
  rto: string,
  words: readonly string[],
): Promise<{ tokens: string[]; complete: boolean }> {
  const result = await sql<{ transaction_batch_token: string; records: number }>`
    SELECT transaction_batch_token, count(*)::int AS records
      FROM (SELECT transaction_batch_token FROM batch_record
             WHERE resource_type IN ('Student', 'Subject', 'Program', 'DeliveryLocation')
               AND ${BATCH_SEARCH_KEYS} @> ${words.map((word) => `${rto}:${word.toLowerCase()}`)}::text[]
             LIMIT ${BATCH_SEARCH_RECORD_LIMIT + 1}) AS found
     GROUP BY transaction_batch_token`.execute(db)
  const read = result.rows.reduce((sum, row) => sum + row.records, 0)
  return {
    tokens: result.rows.map((row) => row.transaction_batch_token),
    complete: read <= BATCH_SEARCH_RECORD_LIMIT,
  }
}

const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The filter's conditions, for a query on transaction_batch (every condition when none: no filter). */
const matching = (filter: ResolvedBatchFilter) => (eb: ExpressionBuilder<Database, 'transaction_batch'>) => {
  const conditions: Expression<SqlBool>[] = []
  if (filter.jurisdiction !== undefined) conditions.push(eb('jurisdiction', '=', filter.jurisdiction))
  if (filter.status !== undefined) conditions.push(eb('status', '=', filter.status))
  if (filter.tokenPrefix !== undefined)
    conditions.push(eb('transaction_batch_token', 'like', likePrefix(filter.tokenPrefix)))
  if (filter.tokens !== undefined)
    conditions.push(filter.tokens.length > 0 ? eb('transaction_batch_token', 'in', filter.tokens) : sql<SqlBool>`false`)
  return eb.and(conditions)
}

export async function countBatches(db: Executor, rto: string, filter: ResolvedBatchFilter): Promise<number> {
  const row = await db
    .selectFrom('transaction_batch')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where(matching(filter))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function listBatches(
  db: Executor,
  rto: string,
  filter: ResolvedBatchFilter,
  limit: number,
  offset: number,
): Promise<BatchRow[]> {
  return db
    .selectFrom('transaction_batch')
    .selectAll()
    .where('rto_id', '=', rto)
    .where(matching(filter))
    .orderBy('created_at', 'desc')
    .orderBy('transaction_batch_token')
    .limit(limit)
    .offset(offset)
    .execute()
}

/** Deletes the batch and its records; call inside a transaction holding the batch lock. */
export async function deleteBatch(db: Executor, rto: string, token: string): Promise<void> {
  await db.deleteFrom('batch_record').where('rto_id', '=', rto).where('transaction_batch_token', '=', token).execute()
  // The batch's kept counts (batch-records.repo.ts) go with it: the delete above has just brought them to zero.
  await db
    .deleteFrom('batch_record_count')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .execute()
  await db
    .deleteFrom('transaction_batch')
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .execute()
}

/** Marks a change to the batch's content, so a validation of an earlier content can be seen as stale. */
export async function touchBatch(db: Executor, rto: string, token: string): Promise<void> {
  await db
    .updateTable('transaction_batch')
    .set({ content_version: sql`content_version + 1`, updated_at: sql`now()` })
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .execute()
}

/** Closes the batch: Submitted, with the time. Call inside the transaction that promoted its records. */
export async function markSubmitted(db: Executor, rto: string, token: string, at: Date): Promise<BatchRow> {
  return db
    .updateTable('transaction_batch')
    .set({ status: 'Submitted', submitted_at: at, updated_at: at })
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The RTO's oldest submitted batch not yet reconciled, in submission order. */
export async function oldestUnreconciledBatch(
  db: Executor,
  rto: string,
): Promise<{ token: string; jurisdiction: string; submittedAt: Date } | undefined> {
  const next = await db
    .selectFrom('transaction_batch')
    .select(['transaction_batch_token', 'jurisdiction', 'submitted_at'])
    .where('rto_id', '=', rto)
    .where('status', '=', 'Submitted')
    .where('reconciled_at', 'is', null)
    .orderBy('submitted_at')
    .orderBy('transaction_batch_token')
    .limit(1)
    .executeTakeFirst()
  return (
    next && {
      token: next.transaction_batch_token,
      jurisdiction: next.jurisdiction,
      submittedAt: new Date(next.submitted_at!),
    }
  )
}

export async function markReconciled(db: Executor, rto: string, token: string): Promise<void> {
  await db
    .updateTable('transaction_batch')
    .set({ reconciled_at: sql`clock_timestamp()` })
    .where('rto_id', '=', rto)
    .where('transaction_batch_token', '=', token)
    .execute()
}
