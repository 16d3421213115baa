// SQL for reference data versions. Writers are serialised (one transaction-scoped advisory lock) and
// stamp their versions after taking the lock, strictly later than every version before: so versions
// become visible in the order of their sysEffectiveFrom, which is what makes the watermark safe.
import { sql, type Generated } from 'kysely'
import { readQuery, type Executor, type ReadDb, type Reader, type Tx } from '../../platform/db/database.ts'

export interface ReferenceRecordVersionTable {
  version_id: Generated<string>
  dataset: string
  record_id: string
  code: string
  description: string
  avetmiss_code: string | null
  business_effective_from: string | null
  business_effective_to: string | null
  status: 'Active' | 'Inactive'
  sys_effective_from: string
  is_current: Generated<boolean>
  /** Dense position within the dataset, in stamping order: pages are ranges of it. */
  dataset_seq: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    reference_record_version: ReferenceRecordVersionTable
  }
}

export interface CurrentRecord {
  recordId: string
  code: string
  description: string
  avetmissCode: string | null
  businessEffectiveFrom: string | null
  businessEffectiveTo: string | null
  status: 'Active' | 'Inactive'
}

export interface SyncedRecord extends CurrentRecord {
  versionId: number
  sysEffectiveFrom: string
}

const WRITE_LOCK = 7_410_321 // arbitrary, fixed: the one advisory lock reference data writers take

/** Serialises writers until the transaction ends, then gives the instant this write is stamped with. */
export async function lockForWriting(tx: Tx): Promise<string> {
  await sql`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`.execute(tx)
  const result = await sql<{ stamp: string }>`
    SELECT to_char(GREATEST(clock_timestamp(), COALESCE(max(sys_effective_from) + interval '1 microsecond', clock_timestamp())) AT TIME ZONE 'UTC',
                   'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS stamp
      FROM reference_record_version`.execute(tx)
  return result.rows[0]!.stamp
}

/** The columns a CurrentRecord is read from, and the record made of them. */
const CURRENT_RECORD_COLUMNS = [
  'record_id',
  'code',
  'description',
  'avetmiss_code',
  'business_effective_from',
  'business_effective_to',
  'status',
] as const

function currentRecordOf(
  row: Pick<ReferenceRecordVersionTable, (typeof CURRENT_RECORD_COLUMNS)[number]>,
): CurrentRecord {
  return {
    recordId: row.record_id,
    code: row.code,
    description: row.description,
    avetmissCode: row.avetmiss_code,
    businessEffectiveFrom: row.business_effective_from,
    businessEffectiveTo: row.business_effective_to,
    status: row.status,
  }
}

export async function currentRecords(db: Executor, dataset: string): Promise<CurrentRecord[]> {
  const rows = await db
    .selectFrom('reference_record_version')
    .select(CURRENT_RECORD_COLUMNS)
    .where('dataset', '=', dataset)
    .where('is_current', '=', true)
    .execute()
  return rows.map(currentRecordOf)
}

/** One page of a dataset's current records in code order, and how many there are. */
export async function currentRecordsPage(
  db: ReadDb,
  dataset: string,
  limit: number,
  offset: number,
): Promise<{ total: number; records: CurrentRecord[] }> {
  const [count, rows] = await Promise.all([
    db
      .selectFrom('reference_record_version')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('dataset', '=', dataset)
      .where('is_current', '=', true)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('reference_record_version')
      .select(CURRENT_RECORD_COLUMNS)
      .where('dataset', '=', dataset)
      .where('is_current', '=', true)
      .orderBy('code')
      .limit(limit)
      .offset(offset)
      .execute(),
  ])
  return {
    total: Number(count.count),
    records: rows.map(currentRecordOf),
  }
}

/** How many current records each dataset has (datasets without any are absent). */
export async function currentRecordCounts(db: ReadDb): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('reference_record_version')
    .select(['dataset', (eb) => eb.fn.countAll<string>().as('count')])
    .where('is_current', '=', true)
    .groupBy('dataset')
    .execute()
  return new Map(rows.map((row) => [row.dataset, Number(row.count)]))
}

export async function hasRecords(db: Executor, dataset: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('reference_record_version')
      .select('version_id')
      .where('dataset', '=', dataset)
      .limit(1)
      .executeTakeFirst()) !== undefined
  )
}

/** Adds new versions stamped `stamp`; the records' earlier versions stop being current. */
export async function addVersions(tx: Tx, dataset: string, stamp: string, versions: CurrentRecord[]): Promise<void> {
  const CHUNK = 1000
  const last = await tx
    .selectFrom('reference_record_version')
    .select((eb) => eb.fn.max('dataset_seq').as('last'))
    .where('dataset', '=', dataset)
    .executeTakeFirst()
  let position = Number(last?.last ?? 0) // safe: writers hold the lock
  for (let start = 0; start < versions.length; start += CHUNK) {
    const chunk = versions.slice(start, start + CHUNK)
    await tx
      .updateTable('reference_record_version')
      .set({ is_current: false })
      .where('dataset', '=', dataset)
      .where('is_current', '=', true)
      .where(
        'code',
        'in',
        chunk.map((v) => v.code),
      )
      .execute()
    await tx
      .insertInto('reference_record_version')
      .values(
        chunk.map((v) => ({
          dataset,
          record_id: v.recordId,
          code: v.code,
          description: v.description,
          avetmiss_code: v.avetmissCode,
          business_effective_from: v.businessEffectiveFrom,
          business_effective_to: v.businessEffectiveTo,
          status: v.status,
          sys_effective_from: stamp,
          dataset_seq: String(++position),
        })),
      )
      .execute()
  }
}

/**
 * The dataset's last position: every version up to it is committed and never changes (a writer
 * numbers its versions under the write lock and commits them together). A page read up to a given
 * last position is therefore the same whenever it is read, which is what lets pages be cached.
 */
export async function lastPosition(db: Reader, dataset: string): Promise<number> {
  const row = await db
    .selectFrom('reference_record_version')
    .select((eb) => eb.fn.max('dataset_seq').as('last'))
    .where('dataset', '=', dataset)
    .executeTakeFirst()
  return Number(row?.last ?? 0)
}

/**
 * One page of the versions stamped at or after changedSince, up to the dataset's position `last`,
 * oldest first, and how many there are, in one statement. Positions follow stamping order, so those
 * versions are the positions from the first such version to `last`, and a page is an index range
 * however deep it is. A version written after `last` was read is left out, so the answer depends on
 * (dataset, changedSince, offset, limit, last) alone.
 */
export async function changesPage(
  db: ReadDb,
  dataset: string,
  changedSince: string,
  last: number,
  offset: number,
  limit: number,
): Promise<{ total: number; records: SyncedRecord[] }> {
  const result = await readQuery(
    db,
    sql<{
      total: string
      version_id: string | null
      record_id: string
      code: string
      description: string
      avetmiss_code: string | null
      business_effective_from: string | null
      business_effective_to: string | null
      status: 'Active' | 'Inactive'
      stamp: string
    }>`
    WITH range AS (
      SELECT (SELECT dataset_seq FROM reference_record_version
               WHERE dataset = ${dataset} AND sys_effective_from >= ${changedSince}::timestamptz
               ORDER BY sys_effective_from, version_id LIMIT 1) AS first,
             ${last}::bigint AS last
    )
    SELECT GREATEST(COALESCE(range.last - range.first + 1, 0), 0) AS total, v.version_id, v.record_id, v.code, v.description, v.avetmiss_code,
           v.business_effective_from, v.business_effective_to, v.status,
           to_char(v.sys_effective_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS stamp
      FROM range
      LEFT JOIN reference_record_version v
        ON v.dataset = ${dataset} AND v.dataset_seq >= range.first + ${offset} AND v.dataset_seq < range.first + ${offset + limit}
           AND v.dataset_seq <= range.last
     ORDER BY v.dataset_seq`,
  )
  const total = Number(result.rows[0]?.total ?? 0)
  const records = result.rows
    .filter((row) => row.version_id !== null)
    .map((row) => ({
      recordId: row.record_id,
      versionId: Number(row.version_id),
      code: row.code,
      description: row.description,
      avetmissCode: row.avetmiss_code,
      businessEffectiveFrom: row.business_effective_from,
      businessEffectiveTo: row.business_effective_to,
      status: row.status,
      sysEffectiveFrom: row.stamp,
    }))
  return { total, records }
}

/** The latest change of every dataset, for cache invalidation. */
export async function latestChanges(db: Executor): Promise<Map<string, string>> {
  const result = await sql<{ dataset: string; latest: string }>`
    SELECT dataset, max(sys_effective_from)::text AS latest FROM reference_record_version GROUP BY dataset`.execute(db)
  return new Map(result.rows.map((row) => [row.dataset, row.latest]))
}
