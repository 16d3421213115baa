// Read-only SQL over reconciliation_item and held_link (kept by every submission). Every statement is
// scoped by the caller's RTO and reads current records only. It runs on the read handle (the replica
// when there is one: docs/decisions.md, "Read routing (issue 21)").
import { sql, type RawBuilder } from 'kysely'
import { readQuery, type ReadDb } from '../../platform/db/database.ts'
import type { ResourceType } from '../../domain/resource-types.ts'

export interface ItemRow {
  resource_uid: string
  resource_type: ResourceType
  submitted_at: Date
  change_tracking_identifier: string | null
  /** Every record in submission has one (docs/decisions.md, "Activity dates"). */
  student_activity_date: string
}

export interface DateRange {
  from: string
  to: string
}

const ITEM_COLUMNS = sql`resource_uid, resource_type, submitted_at, change_tracking_identifier, student_activity_date`

/** Items per activity date of a type within the ranges, newest day first (kept by the indexing job). */
export async function dayCounts(
  db: ReadDb,
  rto: string,
  type: string,
  ranges: DateRange[],
): Promise<{ day: string; items: number }[]> {
  const conditions = ranges.map((range) => sql`student_activity_date BETWEEN ${range.from}::date AND ${range.to}::date`)
  const result = await readQuery(
    db,
    sql<{ day: string; items: number }>`
    SELECT student_activity_date::text AS day, items FROM reconciliation_day_count
     WHERE rto_id = ${rto} AND resource_type = ${type} AND (${sql.join(conditions, sql` OR `)})
     ORDER BY student_activity_date DESC`,
  )
  return result.rows
}

/**
 * One page of a type's items whose activity date falls in the ranges, newest first then by UID,
 * starting at `fromDay` (no item dated after it is on the page) and skipping `skip` items from there.
 * Each range is read from the activity index in result order and the ranges are merged, so a page
 * reads about skip + limit index entries, however deep the page.
 */
export async function itemsInRanges(
  db: ReadDb,
  rto: string,
  type: string,
  ranges: DateRange[],
  fromDay: string,
  skip: number,
  limit: number,
): Promise<ItemRow[]> {
  const branches = ranges
    .filter((range) => range.from <= fromDay)
    .map(
      (range) => sql`(
    SELECT ${ITEM_COLUMNS} FROM reconciliation_item
     WHERE rto_id = ${rto} AND resource_type = ${type}
       AND student_activity_date BETWEEN ${range.from}::date AND ${range.to < fromDay ? range.to : fromDay}::date
     ORDER BY student_activity_date DESC, resource_uid
     LIMIT ${limit + skip})`,
    )
  if (branches.length === 0) return []
  const result = await readQuery(
    db,
    sql<ItemRow>`
    SELECT ${ITEM_COLUMNS} FROM (${sql.join(branches, sql` UNION ALL `)}) AS items
     ORDER BY student_activity_date DESC, resource_uid
     LIMIT ${limit} OFFSET ${skip}`,
  )
  return result.rows
}

/** The items of the requested UIDs (absent when not held), one row per UID, in request order. */
export async function itemsByUid(
  db: ReadDb,
  rto: string,
  type: string,
  uids: string[],
): Promise<(ItemRow & { requested: string; held: boolean })[]> {
  const result = await readQuery(
    db,
    sql<ItemRow & { requested: string; held: boolean }>`
    SELECT u.uid::text AS requested, r.resource_uid IS NOT NULL AS held, r.resource_uid, r.resource_type, r.submitted_at, r.change_tracking_identifier, r.student_activity_date
      FROM unnest(${uids}::uuid[]) WITH ORDINALITY AS u(uid, n)
      LEFT JOIN reconciliation_item r ON r.rto_id = ${rto} AND r.resource_type = ${type} AND r.resource_uid = u.uid
     ORDER BY u.n`,
  )
  return result.rows
}

export async function findItem(db: ReadDb, rto: string, type: string, uid: string): Promise<ItemRow | undefined> {
  const result = await readQuery(
    db,
    sql<ItemRow>`SELECT ${ITEM_COLUMNS} FROM reconciliation_item WHERE rto_id = ${rto} AND resource_type = ${type} AND resource_uid = ${uid}::uuid`,
  )
  return result.rows[0]
}

/**
 * A set of related records reached from other sets through links: `targets` follows references a
 * record makes (an enrolment to its student), `sources` follows references made to it.
 */
export interface TraversalSet {
  name: string
  type: ResourceType
  from: readonly { set: string; via: 'targets' | 'sources' }[]
}

/**
 * Related records of the start (a set named `start`), as one page of items plus their count. Each set
 * that is traversed from is looked up once in each direction (all its links out, all links in), and
 * the sets reached from it take their type's share, so a busy student costs one index look-up per
 * enrolment and direction rather than one per enrolment and related type.
 */
export async function relatedItems(
  db: ReadDb,
  rto: string,
  start: { type: ResourceType; uid: string },
  sets: readonly TraversalSet[],
  limit: number,
  offset: number,
): Promise<{ rows: ItemRow[]; total: number }> {
  const typeOf = new Map<string, ResourceType>([['start', start.type], ...sets.map((s) => [s.name, s.type] as const)])
  const ctes: RawBuilder<unknown>[] = [sql`start AS (SELECT ${start.uid}::uuid AS uid)`]
  const links = new Set<string>()
  const linksOf = (from: string, via: 'targets' | 'sources') => {
    const name = `${via === 'targets' ? 'out' : 'in'}_${from}`
    if (!links.has(name)) {
      links.add(name)
      ctes.push(
        via === 'targets'
          ? sql`${sql.table(name)} AS (SELECT l.target_type AS type, l.target_uid AS uid FROM held_link l
               WHERE l.rto_id = ${rto} AND l.source_type = ${typeOf.get(from)!} AND l.source_uid IN (SELECT uid FROM ${sql.table(from)}))`
          : sql`${sql.table(name)} AS (SELECT l.source_type AS type, l.source_uid AS uid FROM held_link l
               WHERE l.rto_id = ${rto} AND l.target_type = ${typeOf.get(from)!} AND l.target_uid IN (SELECT uid FROM ${sql.table(from)}))`,
      )
    }
    return name
  }
  for (const set of sets) {
    const parts = set.from.map(
      ({ set: from, via }) => sql`SELECT uid FROM ${sql.table(linksOf(from, via))} WHERE type = ${set.type}`,
    )
    ctes.push(sql`${sql.table(set.name)} AS (${sql.join(parts, sql` UNION `)})`)
  }
  const related = sql.join(
    sets.map((set) => sql`SELECT ${set.type}::text AS type, uid FROM ${sql.table(set.name)}`),
    sql` UNION `,
  )
  const result = await readQuery(
    db,
    sql<ItemRow & { total: string }>`
    WITH ${sql.join(ctes)}
    SELECT r.resource_uid, r.resource_type, r.submitted_at, r.change_tracking_identifier, r.student_activity_date, count(*) OVER ()::text AS total
      FROM (${related}) AS x
      JOIN reconciliation_item r ON r.rto_id = ${rto} AND r.resource_type = x.type AND r.resource_uid = x.uid
     ORDER BY r.student_activity_date DESC, r.resource_uid
     LIMIT ${limit} OFFSET ${offset}`,
  )
  const total = result.rows[0]
    ? Number(result.rows[0].total)
    : offset > 0
      ? await countRelated(db, rto, ctes, related)
      : 0
  return { rows: result.rows, total }
}

async function countRelated(
  db: ReadDb,
  rto: string,
  ctes: RawBuilder<unknown>[],
  related: RawBuilder<unknown>,
): Promise<number> {
  const result = await readQuery(
    db,
    sql<{ count: string }>`
    WITH ${sql.join(ctes)}
    SELECT count(*)::text AS count FROM (${related}) AS x
      JOIN reconciliation_item r ON r.rto_id = ${rto} AND r.resource_type = x.type AND r.resource_uid = x.uid`,
  )
  return Number(result.rows[0]!.count)
}
