// SQL that reads held records themselves (a version, its history, a page of them, their bodies, the
// console's search): the held dataset's reads by record. Owned by holdings, as held_record is.
import { sql } from 'kysely'
import type { ReadDb, Reader } from '../../platform/db/database.ts'
import type { HeldRecordRow } from './holdings.tables.ts'

export async function currentVersion(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
): Promise<HeldRecordRow | undefined> {
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .where('is_current', '=', true)
    .executeTakeFirst()
}

export async function countVersions(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
): Promise<number> {
  const row = await db
    .selectFrom('held_record')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export interface HeldRecordsQuery {
  rto: string
  resourceType: string
  /** Only UIDs after this one (exclusive): the cursor of keyset paging. */
  after?: string
  /** Only these UIDs (lower case). */
  uids?: readonly string[]
  limit: number
}

/**
 * The current, not voided, versions of one resource type of the RTO, in UID order, after the cursor.
 * Keyset paging on the index of current versions (rto, type, uid WHERE is_current): each page costs
 * the rows it returns, however deep, where an offset would read every row before it again.
 */
export async function heldRecordsPage(
  db: ReadDb,
  q: HeldRecordsQuery,
): Promise<
  Pick<HeldRecordRow, 'resource_uid' | 'change_tracking_identifier' | 'submitted_at' | 'jurisdiction' | 'body'>[]
> {
  let query = db
    .selectFrom('held_record')
    .select(['resource_uid', 'change_tracking_identifier', 'submitted_at', 'jurisdiction', 'body'])
    .where('rto_id', '=', q.rto)
    .where('resource_type', '=', q.resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
  if (q.after !== undefined) query = query.where('resource_uid', '>', q.after)
  if (q.uids !== undefined) query = query.where('resource_uid', 'in', [...q.uids])
  return query.orderBy('resource_uid').limit(q.limit).execute()
}

/** The current, not voided, bodies of these UIDs of one type of the RTO (those it holds). */
export async function heldBodies(
  db: Reader,
  rto: string,
  resourceType: string,
  uids: readonly string[],
): Promise<{ resource_uid: string; body: unknown }[]> {
  if (uids.length === 0) return []
  return db
    .selectFrom('held_record')
    .select(['resource_uid', 'body'])
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
    .where('resource_uid', 'in', [...uids])
    .execute()
}

/** How many current, not voided, records of the type the RTO holds. */
export async function countHeldRecords(
  db: ReadDb,
  rto: string,
  resourceType: string,
  uids?: readonly string[],
): Promise<number> {
  let query = db
    .selectFrom('held_record')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('is_current', '=', true)
    .where('state_in_submission', '=', 'In submission')
  if (uids !== undefined) query = query.where('resource_uid', 'in', [...uids])
  const row = await query.executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * The keys a current held version is found by (people's names, client identifier, USI, unit and
 * program codes, a location's identifier), each `<rto>:<lower-case value>`: the expression of the
 * index held_record_search (migrations/0024_held_record_search.ts), written identically.
 */
const HELD_SEARCH_KEYS = sql`ARRAY[
      rto_id || ':' || lower(body->>'clientIdentifier'),
      rto_id || ':' || lower(body->>'uniqueStudentIdentifier'),
      rto_id || ':' || lower(body->>'familyName'),
      rto_id || ':' || lower(body->>'firstGivenName'),
      rto_id || ':' || lower(body->>'subjectIdentifier'),
      rto_id || ':' || lower(body->>'programIdentifier'),
      rto_id || ':' || lower(body->>'deliveryLocationIdentifier')
    ]`

/** Current held versions of the RTO whose keys include every word, newest submission first. */
export async function searchCurrent(db: ReadDb, rto: string, words: string[], limit: number): Promise<HeldRecordRow[]> {
  const keys = words.map((word) => `${rto}:${word.toLowerCase()}`)
  // The RTO is in every key, so the index alone scopes the search to it; an rto_id condition beside
  // it would make the planner AND in the primary key's thousands of rows of the RTO for nothing.
  // Every row is checked again against the RTO below all the same.
  const rows = await db
    .selectFrom('held_record')
    .selectAll()
    .where('is_current', '=', true)
    .where(sql<boolean>`${HELD_SEARCH_KEYS} @> ${keys}::text[]`)
    .orderBy('submitted_at', 'desc')
    .orderBy('resource_type')
    .orderBy('resource_uid')
    .limit(limit)
    .execute()
  return rows.filter((row) => row.rto_id === rto)
}

/** The record's held versions, newest first (at most `limit`). */
export async function versionsOf(
  db: ReadDb,
  rto: string,
  resourceType: string,
  resourceUID: string,
  limit: number,
): Promise<HeldRecordRow[]> {
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('resource_type', '=', resourceType)
    .where('resource_uid', '=', resourceUID)
    .orderBy('submission_seq', 'desc')
    .limit(limit)
    .execute()
}

/** The current versions of the named records of the RTO (those it holds), in one read. */
export async function currentVersionsOf(
  db: Reader,
  rto: string,
  keys: { resourceType: string; resourceUID: string }[],
): Promise<HeldRecordRow[]> {
  if (keys.length === 0) return []
  return db
    .selectFrom('held_record')
    .selectAll()
    .where('rto_id', '=', rto)
    .where('is_current', '=', true)
    .where((eb) =>
      eb.or(
        keys.map((key) =>
          eb.and([eb('resource_type', '=', key.resourceType), eb('resource_uid', '=', key.resourceUID)]),
        ),
      ),
    )
    .execute()
}
