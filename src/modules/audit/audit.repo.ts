// SQL for the audit trail. audit_entry and audit_day belong to this module alone; other modules write
// entries through its index (recordAudit) or through the HTTP layer's audit hook, which app.ts wires
// to it. Inserting is one statement: it moves the day's head forward and inserts the entry chained to
// the head it replaced, so concurrent writers queue on the day's head row and never fork the chain.
import { sql } from 'kysely'
import type { AuditActorKind, AuditOutcome } from '../../domain/audit.ts'
import type { Executor, Tx } from '../../platform/db/database.ts'
import type { StoredAuditEntry, UnchainedEntry } from './audit-chain.ts'

export interface AuditDayTable {
  day: string
  lane: number
  last_seq: string
  last_hash: string
  prev_hash: string
}

export interface AuditEntryTable {
  day: string
  lane: number
  seq: string
  pos: import('kysely').Generated<string>
  id: string
  at: Date
  actor_kind: AuditActorKind
  actor_id: string
  actor_role: string | null
  source_address: string | null
  action: string
  record_type: string | null
  record_id: string | null
  batch_token: string | null
  rto_id: string | null
  outcome: AuditOutcome
  status: number | null
  request_id: string | null
  prev_hash: string
  hash: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    audit_day: AuditDayTable
    audit_entry: AuditEntryTable
  }
}

export type EntryToInsert = UnchainedEntry

/**
 * Appends the entry to its day's chain on the connection's lane. The lane's head row is inserted (the
 * lane's first entry, chained from the lane's seed, made from the day's `seed`) or updated (number + 1,
 * hash over the previous head); on PostgreSQL the update locks the row until the transaction ends, and
 * a concurrent writer of the same lane then re-reads the new head, so each number and each previous
 * hash is taken once. `canonical` is the entry's canonical text (audit-chain.ts).
 */
export async function insertEntry(
  db: Executor,
  entry: EntryToInsert,
  seed: string,
  canonical: string,
): Promise<{ lane: number; seq: string; hash: string }> {
  const result = await sql<{ lane: number; seq: string; hash: string }>`
    WITH lane AS (SELECT audit_lane() AS lane),
    head AS (
      INSERT INTO audit_day AS d (day, lane, last_seq, last_hash, prev_hash)
      SELECT ${entry.day}::date, lane.lane, 1,
             encode(sha256(convert_to(audit_lane_seed(${seed}, lane.lane) || E'\n1\n' || ${canonical}::text, 'UTF8')), 'hex'),
             audit_lane_seed(${seed}, lane.lane)
        FROM lane
      ON CONFLICT (day, lane) DO UPDATE SET
        last_seq = d.last_seq + 1,
        prev_hash = d.last_hash,
        last_hash = encode(sha256(convert_to(
          d.last_hash || E'\n' || (d.last_seq + 1)::text || E'\n' || ${canonical}::text, 'UTF8')), 'hex')
      RETURNING d.lane, d.last_seq, d.last_hash, d.prev_hash
    )
    INSERT INTO audit_entry (day, lane, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                             record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
    SELECT ${entry.day}::date, head.lane, head.last_seq, ${entry.id}::uuid, ${entry.at}::timestamptz, ${entry.actorKind},
           ${entry.actorId}, ${entry.actorRole}, ${entry.sourceAddress}, ${entry.action}, ${entry.recordType},
           ${entry.recordId}, ${entry.batchToken}, ${entry.rto}, ${entry.outcome}, ${entry.status}::int,
           ${entry.requestId}, head.prev_hash, head.last_hash
      FROM head
    RETURNING lane, seq::text AS seq, hash`.execute(db)
  const row = result.rows[0]!
  return { lane: Number(row.lane), seq: row.seq, hash: row.hash }
}

/**
 * Appends several entries of one day in the caller's transaction, on its connection's lane (the same
 * rule as insertEntry, in SQL): the lane's head row is created if missing (number 0, the lane's seed as
 * its hash) and locked, the entries chained after it in JS (`chain` gives each its lane, number,
 * previous hash and hash), inserted in one statement, and the head moved to the last. Concurrent
 * writers of the same lane wait on the head row's lock, as for one entry.
 */
export async function insertEntriesOfDay(
  tx: Tx,
  day: string,
  seed: string,
  chain: (head: { lane: number; lastSeq: number; lastHash: string }) => Omit<StoredAuditEntry, 'pos'>[],
): Promise<Omit<StoredAuditEntry, 'pos'>[]> {
  await sql`INSERT INTO audit_day (day, lane, last_seq, last_hash, prev_hash)
            SELECT ${day}::date, lane, 0, audit_lane_seed(${seed}, lane), audit_lane_seed(${seed}, lane)
              FROM (SELECT audit_lane() AS lane) AS l
            ON CONFLICT (day, lane) DO NOTHING`.execute(tx)
  const head = await sql<{ lane: number; last_seq: string; last_hash: string }>`
    SELECT lane, last_seq::text AS last_seq, last_hash FROM audit_day
     WHERE day = ${day}::date AND lane = audit_lane() FOR UPDATE`.execute(tx)
  const row = head.rows[0]!
  const lane = Number(row.lane)
  const entries = chain({ lane, lastSeq: Number(row.last_seq), lastHash: row.last_hash })
  const values = entries.map(
    (e) =>
      sql`(${e.day}::date, ${e.lane}::smallint, ${e.seq}::bigint, ${e.id}::uuid, ${e.at}::timestamptz, ${e.actorKind}, ${e.actorId},
           ${e.actorRole}, ${e.sourceAddress}, ${e.action}, ${e.recordType}, ${e.recordId}, ${e.batchToken}, ${e.rto},
           ${e.outcome}, ${e.status}::int, ${e.requestId}, ${e.prevHash}, ${e.hash})`,
  )
  await sql`
    INSERT INTO audit_entry (day, lane, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                             record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
    VALUES ${sql.join(values)}`.execute(tx)
  const last = entries.at(-1)!
  await sql`UPDATE audit_day SET last_seq = ${last.seq}, last_hash = ${last.hash}, prev_hash = ${last.prevHash}
             WHERE day = ${day}::date AND lane = ${lane}::smallint`.execute(tx)
  return entries
}

interface EntryRow {
  day: string
  lane: number
  seq: string
  pos: string
  id: string
  at: Date | string
  actor_kind: AuditActorKind
  actor_id: string
  actor_role: string | null
  source_address: string | null
  action: string
  record_type: string | null
  record_id: string | null
  batch_token: string | null
  rto_id: string | null
  outcome: AuditOutcome
  status: number | null
  request_id: string | null
  prev_hash: string
  hash: string
}

// Selected as text (bigint and date would come back as a string or a local-time Date): ORDER BY names
// the table's columns qualified, or it would sort by the text of the same name.
const ENTRY_COLUMNS = sql`day::text AS day, lane, seq::text AS seq, pos::text AS pos, id::text AS id, at, actor_kind, actor_id, actor_role,
  source_address, action, record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash`

function toEntry(row: EntryRow): StoredAuditEntry {
  return {
    day: row.day,
    lane: Number(row.lane),
    seq: Number(row.seq),
    pos: Number(row.pos),
    id: row.id,
    at: row.at instanceof Date ? row.at : new Date(row.at),
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    actorRole: row.actor_role,
    sourceAddress: row.source_address,
    action: row.action as StoredAuditEntry['action'],
    recordType: row.record_type,
    recordId: row.record_id,
    batchToken: row.batch_token,
    rto: row.rto_id,
    outcome: row.outcome,
    status: row.status === null ? null : Number(row.status),
    requestId: row.request_id,
    prevHash: row.prev_hash,
    hash: row.hash,
  }
}

/** A lane's entries numbered after `afterSeq`, in order, at most `limit` (the verification's pages). */
export async function entriesOfLane(
  db: Executor,
  day: string,
  lane: number,
  afterSeq: number,
  limit: number,
): Promise<StoredAuditEntry[]> {
  const result = await sql<EntryRow>`
    SELECT ${ENTRY_COLUMNS} FROM audit_entry
     WHERE day = ${day}::date AND lane = ${lane}::smallint AND seq > ${afterSeq}
     ORDER BY audit_entry.seq LIMIT ${limit}`.execute(db)
  return result.rows.map(toEntry)
}

/**
 * The lanes of the days from `from` to `to` (inclusive) that have a head or entries, with their heads,
 * by day then lane: a lane with entries and no head, or a head and no entries, is there too.
 */
export async function lanesBetween(
  db: Executor,
  from: string,
  to: string,
): Promise<{ day: string; lane: number; lastSeq: number | null; lastHash: string | null }[]> {
  const result = await sql<{ day: string; lane: number; last_seq: string | null; last_hash: string | null }>`
    SELECT lanes.day::text AS day, lanes.lane, d.last_seq::text AS last_seq, d.last_hash
      FROM (SELECT day, lane FROM audit_day WHERE day BETWEEN ${from}::date AND ${to}::date
            UNION
            SELECT DISTINCT day, lane FROM audit_entry WHERE day BETWEEN ${from}::date AND ${to}::date) AS lanes
      LEFT JOIN audit_day d ON d.day = lanes.day AND d.lane = lanes.lane
     ORDER BY lanes.day, lanes.lane`.execute(db)
  return result.rows.map((r) => ({
    day: r.day,
    lane: Number(r.lane),
    lastSeq: r.last_seq === null ? null : Number(r.last_seq),
    lastHash: r.last_hash,
  }))
}

export interface AuditFilter {
  rto?: string | undefined
  actorId?: string | undefined
  action?: string | undefined
  recordId?: string | undefined
  /** Days, inclusive, YYYY-MM-DD. */
  from?: string | undefined
  to?: string | undefined
}

/** Where a page ends: the last entry shown (its day and position); the next page starts before it. */
export interface AuditCursor {
  day: string
  pos: number
}

/**
 * Entries matching the filter, newest first (by day, then position: the order they were inserted in,
 * across lanes), before the cursor, at most `limit`; keyset-paged on (day, pos), which each index of
 * the filters (RTO, record, actor, none) ends with.
 */
export async function searchEntries(
  db: Executor,
  filter: AuditFilter,
  before: AuditCursor | undefined,
  limit: number,
): Promise<StoredAuditEntry[]> {
  const conditions = [
    filter.rto === undefined ? undefined : sql`rto_id = ${filter.rto}`,
    filter.actorId === undefined ? undefined : sql`actor_id = ${filter.actorId}`,
    filter.action === undefined ? undefined : sql`action = ${filter.action}`,
    filter.recordId === undefined ? undefined : sql`record_id = ${filter.recordId}`,
    filter.from === undefined ? undefined : sql`day >= ${filter.from}::date`,
    filter.to === undefined ? undefined : sql`day <= ${filter.to}::date`,
    before === undefined ? undefined : sql`(day, pos) < (${before.day}::date, ${before.pos}::bigint)`,
  ].filter((c) => c !== undefined)
  const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`
  const result = await sql<EntryRow>`
    SELECT ${ENTRY_COLUMNS} FROM audit_entry ${where}
     ORDER BY audit_entry.day DESC, audit_entry.pos DESC LIMIT ${limit}`.execute(db)
  return result.rows.map(toEntry)
}

/**
 * Removes every entry and head of the days before `cutoffDay`, whole days only, so the days kept stay
 * verifiable. The append-only trigger lets a DELETE through only in a transaction that says it is the
 * retention (a transaction-local setting); the caller gives the transaction.
 */
export async function deleteDaysBefore(tx: Tx, cutoffDay: string): Promise<number> {
  await sql`SELECT set_config('vetrs.audit_retention', 'on', true)`.execute(tx)
  await sql`DELETE FROM audit_entry WHERE day < ${cutoffDay}::date`.execute(tx)
  const removed = await sql<{
    day: string
  }>`DELETE FROM audit_day WHERE day < ${cutoffDay}::date RETURNING day`.execute(tx)
  await sql`SELECT set_config('vetrs.audit_retention', 'off', true)`.execute(tx)
  return removed.rows.length
}
