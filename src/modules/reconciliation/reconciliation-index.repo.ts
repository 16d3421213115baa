// Keeps reconciliation's tables current after each submission: the links between held records
// (held_link) and one reconciliation item per record in submission (reconciliation_item), with the
// activity date each is searched and sorted by (docs/decisions.md, "Activity dates"). First the date
// enrolment activity gives it (enrolment_activity_date):
//   enrolments: their latest lifecycle studentActivityDate;
//   subject offering: latest of its subject enrolments; program offering: latest of its program
//   enrolments and subject offerings; subject: latest of its subject offerings; program: latest of its
//   program offerings; student: latest of its enrolments; delivery location: latest of the subject
//   enrolments held there.
// A record no current enrolment dates (never used, or every enrolment using it voided) is searched by
// the UTC date of its own latest submission instead, so every record in submission has a date; that
// fallback dates only the record itself, never the records above it.
// Only what the batch touches is recomputed: its records, and what they referenced before or now.
// Cross-module read, on purpose: indexing reads the submitted batch's records from the view batches
// publishes for it (batch_content, never its table), set-based in the statements below, rather than one record at a time through
// the batches module (docs/decisions.md, "Architecture: shared kernel and module boundaries").
import { sql, type RawBuilder } from 'kysely'
import { readQuery, type Executor, type ReadDb } from '../../platform/db/database.ts'
import { referenceFields, resourceTypes, type ResourceType } from '../../domain/resource-types.ts'

export interface ReconciliationTables {
  reconciliation_day_count: { rto_id: string; resource_type: string; student_activity_date: string; items: number }
  held_link: { rto_id: string; source_type: string; source_uid: string; target_type: string; target_uid: string }
  reconciliation_staged_link: {
    rto_id: string
    transaction_batch_token: string
    submitted_at: Date
    source_type: string
    source_uid: string
    target_type: string
    target_uid: string
  }
  reconciliation_item: {
    rto_id: string
    resource_type: string
    resource_uid: string
    student_activity_date: string
    enrolment_activity_date: string | null
    submitted_at: Date
    change_tracking_identifier: string | null
  }
}

declare module '../../platform/db/schema.ts' {
  interface Database extends ReconciliationTables {}
}

/** Whose enrolment activity dates a record's is the latest of, in the order they must be computed. */
export const DATED_BY: readonly (readonly [ResourceType, readonly ResourceType[]])[] = [
  ['SubjectOffering', ['SubjectEnrolment']],
  ['ProgramOffering', ['ProgramEnrolment', 'SubjectOffering']],
  ['Subject', ['SubjectOffering']],
  ['Program', ['ProgramOffering']],
  ['Student', ['ProgramEnrolment', 'SubjectEnrolment']],
  ['DeliveryLocation', ['SubjectEnrolment']],
]

const ENROLMENTS = ['ProgramEnrolment', 'SubjectEnrolment']

/** The date a record no enrolment dates is searched by: the UTC day of its latest submission. */
const submissionDay = (submittedAt: RawBuilder<unknown>) => sql`(${submittedAt} AT TIME ZONE 'UTC')::date`

/**
 * The links batch record `b` makes, `(target_type, target_uid)`, as one lateral table: a branch per
 * reference field of every type, each guarded by the record's type, so one scan of the batch yields
 * every link (a scan per field read, and decompressed, each body up to four times).
 */
export function linksOf(): RawBuilder<unknown> {
  const branches = resourceTypes.flatMap((source) =>
    referenceFields[source].map(({ field, references }) => {
      const array = /^(\w+)\[\]\.(\w+)$/.exec(field)
      if (array) {
        const [, list, key] = array as unknown as [string, string, string]
        // A list may name one target twice; a scalar field names one.
        return sql`SELECT DISTINCT ${references}::text, (e.value->>${key})::uuid FROM jsonb_array_elements(b.body->${list}) AS e(value)
                    WHERE b.resource_type = ${source} AND e.value->>${key} IS NOT NULL`
      }
      return sql`SELECT ${references}::text, (b.body->>${field})::uuid WHERE b.resource_type = ${source} AND b.body->>${field} IS NOT NULL`
    }),
  )
  return sql`LATERAL (${sql.join(branches, sql` UNION ALL `)}) AS t(target_type, target_uid)`
}

/**
 * Analyses a table whose statistics were taken with fewer rows than `rows` (or never): the rows this
 * transaction wrote are then counted too. Bounded: ANALYZE reads a sample, not the table.
 */
export async function analyseWhenStale(
  db: Executor,
  table: 'held_link' | 'reconciliation_item',
  rows: number,
): Promise<void> {
  const stale = await sql<{ stale: boolean }>`
    SELECT reltuples < ${rows} AS stale FROM pg_class WHERE oid = ${table}::regclass`.execute(db)
  if (stale.rows[0]?.stale) await sql`ANALYZE ${sql.table(table)}`.execute(db)
}

/**
 * Every link the batch's records make (`inBatch`: a condition on batch_content b), sorted as held_link's
 * primary key is (its pages are then filled one after another rather than at random). Type names sort
 * bytewise: with the database's collation the sort of a large batch's links took longer than
 * inserting them.
 */
function linksOfBatch(inBatch: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    SELECT b.rto_id, b.resource_type, b.resource_uid, t.target_type, t.target_uid
      FROM batch_content b CROSS JOIN ${linksOf()}
     WHERE ${inBatch} AND NOT b.is_voided
     ORDER BY t.target_type COLLATE "C", t.target_uid, b.resource_type COLLATE "C", b.resource_uid`
}

/** Which submission a stage of links belongs to: its batch, and the time it was submitted at. */
export interface StagedSubmission {
  rto: string
  token: string
  submittedAt: Date
}

/**
 * Works out the links of a submission's records into reconciliation_staged_link, in this transaction
 * of its own, while the submit's transaction promotes the batch (issue 30, the reconciliation lag):
 * the indexing then inserts them without reading a body (indexSubmission). Only ever started once the
 * submit holds the batch's lock, so the records read are the ones submitted. A stage that is not
 * committed when the indexing starts (or never is) is simply not used.
 */
export async function stageLinks(db: Executor, p: StagedSubmission): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(db)
  await sql`SET LOCAL work_mem = '64MB'`.execute(db)
  const inBatch = sql`b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}`
  await sql`
    INSERT INTO reconciliation_staged_link (rto_id, transaction_batch_token, submitted_at, source_type, source_uid, target_type, target_uid)
    SELECT l.rto_id, ${p.token}, ${p.submittedAt}::timestamptz, l.resource_type, l.resource_uid, l.target_type, l.target_uid
      FROM (${linksOfBatch(inBatch)}) AS l`.execute(db)
}

/**
 * Removes the RTO's stages of submissions up to this one, once it is indexed: its own, and any left
 * by a submit that rolled back or a stage that committed after the indexing had started without it.
 */
export async function clearStagedLinks(db: Executor, p: StagedSubmission): Promise<void> {
  await sql`DELETE FROM reconciliation_staged_link WHERE rto_id = ${p.rto} AND submitted_at <= ${p.submittedAt}::timestamptz`.execute(
    db,
  )
}

/**
 * Items: a void removes the record's item; every other record of the batch gets its latest version's.
 * `records`: which of batch_content's records (alias b), the batch's or a slice of it.
 */
export async function writeItems(db: Executor, records: RawBuilder<unknown>, submittedAt: Date): Promise<void> {
  await sql`
    DELETE FROM reconciliation_item r USING batch_content b
     WHERE ${records} AND b.is_voided AND r.rto_id = b.rto_id AND r.resource_type = b.resource_type AND r.resource_uid = b.resource_uid`.execute(
    db,
  )
  await sql`
    INSERT INTO reconciliation_item (rto_id, resource_type, resource_uid, student_activity_date, enrolment_activity_date, submitted_at, change_tracking_identifier)
    SELECT b.rto_id, b.resource_type, b.resource_uid, coalesce(own.date, ${submissionDay(sql`${submittedAt}::timestamptz`)}), own.date,
           ${submittedAt}::timestamptz, b.change_tracking_identifier
      FROM batch_content b
      -- OFFSET 0 keeps the subquery whole: flattened, its date was worked out (and the body read) once per use above.
      CROSS JOIN LATERAL (SELECT CASE WHEN b.resource_type IN (${sql.join(ENROLMENTS)})
                                      THEN (SELECT max(l.value->>'studentActivityDate') FROM jsonb_array_elements(b.body->'lifecycle') AS l(value))::date END AS date
                          OFFSET 0) AS own
     WHERE ${records} AND NOT b.is_voided
     ORDER BY b.resource_type COLLATE "C", b.resource_uid -- as the primary key is, as above
    ON CONFLICT (rto_id, resource_type, resource_uid) DO UPDATE
       SET student_activity_date = excluded.student_activity_date, enrolment_activity_date = excluded.enrolment_activity_date,
           submitted_at = excluded.submitted_at, change_tracking_identifier = excluded.change_tracking_identifier`.execute(
    db,
  )
}

export async function indexSubmission(
  db: Executor,
  p: { rto: string; token: string; submittedAt: Date },
): Promise<void> {
  const inBatch = sql`b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}`
  await sql`CREATE TEMP TABLE reconciliation_affected (resource_type text, resource_uid uuid, PRIMARY KEY (resource_type, resource_uid)) ON COMMIT DROP`.execute(
    db,
  )
  // The links the batch's records made before this submission: a target one of them held the latest
  // date of may have to be read again in full (below).
  await sql`CREATE TEMP TABLE reconciliation_dropped_link (target_type text, target_uid uuid, source_type text, source_uid uuid) ON COMMIT DROP`.execute(
    db,
  )
  // The table is new and the batch holds a record once: nothing to check for conflicts.
  const batchSize =
    await sql`INSERT INTO reconciliation_affected SELECT b.resource_type, b.resource_uid FROM batch_content b WHERE ${inBatch}`.execute(
      db,
    )
  const records = Number(batchSize.numAffectedRows ?? 0)
  await sql`SET LOCAL jit = off`.execute(db) // compiling these statements costs more than running them
  // The tables read here are in memory on any server that keeps up with its submissions: a random read
  // costs about what a sequential one does, and the default (4) made the planner read every link of
  // the RTO rather than look up the few thousand the batch touches.
  await sql`SET LOCAL random_page_cost = 1.1`.execute(db)

  // Links: the batch's records drop the links of their previous versions and add their own (a void adds none).
  await sql`
    WITH old AS (
      DELETE FROM held_link l USING batch_content b
       WHERE ${inBatch} AND l.rto_id = b.rto_id AND l.source_type = b.resource_type AND l.source_uid = b.resource_uid
      RETURNING l.target_type, l.target_uid, l.source_type, l.source_uid),
    kept AS (INSERT INTO reconciliation_dropped_link SELECT target_type, target_uid, source_type, source_uid FROM old)
    INSERT INTO reconciliation_affected SELECT DISTINCT target_type, target_uid FROM old ON CONFLICT DO NOTHING`.execute(
    db,
  )
  // Every link of the batch from one scan of it. The statement above removed every link these records
  // made, and no record makes one link twice, so no new link can collide with a stored one: a plain
  // insert, without the cost of checking each row for a conflict, in primary-key order (linksOfBatch).
  // When the links were staged beside the submit (stageLinks), they are taken as staged: no body is
  // read. The stage's key is held_link's after the submission's, so they come in that order (the
  // order is only for speed: a plan that read them otherwise would insert the same links).
  await sql`SET LOCAL work_mem = '64MB'`.execute(db) // sorts 100,000 records' links in memory
  const stage = sql`s.rto_id = ${p.rto} AND s.transaction_batch_token = ${p.token} AND s.submitted_at = ${p.submittedAt}::timestamptz`
  const isStaged = await sql<{
    staged: boolean
  }>`SELECT EXISTS (SELECT 1 FROM reconciliation_staged_link s WHERE ${stage}) AS staged`.execute(db)
  const links = isStaged.rows[0]?.staged
    ? sql`SELECT s.rto_id, s.source_type, s.source_uid, s.target_type, s.target_uid FROM reconciliation_staged_link s WHERE ${stage}`
    : linksOfBatch(inBatch)
  await sql`
    WITH added AS (
      INSERT INTO held_link (rto_id, source_type, source_uid, target_type, target_uid) ${links}
      RETURNING target_type, target_uid)
    INSERT INTO reconciliation_affected SELECT DISTINCT target_type, target_uid FROM added ON CONFLICT DO NOTHING`.execute(
    db,
  )
  // The statements below reach the RTO's links and items through their indexes from the affected
  // records, so that their cost follows what the batch touches rather than what the RTO holds. The
  // planner needs statistics for that: of the temporary tables, and of links and items when what they
  // were last analysed with is fewer rows than this batch alone (a new database, or an RTO's first
  // large submission), or it takes them for tiny tables and reads them whole for every target.
  await sql`ANALYZE reconciliation_affected`.execute(db)
  await analyseWhenStale(db, 'held_link', records)
  // An offering's date feeds its subject, program offering and program: two steps up.
  for (let step = 0; step < 2; step++) {
    await sql`
      INSERT INTO reconciliation_affected
      SELECT DISTINCT l.target_type, l.target_uid
        FROM reconciliation_affected a JOIN held_link l
          ON l.rto_id = ${p.rto} AND l.source_type = a.resource_type AND l.source_uid = a.resource_uid
       WHERE a.resource_type IN ('SubjectOffering', 'ProgramOffering')
      ON CONFLICT DO NOTHING`.execute(db)
  }

  // What every affected record's item said before this submission: the dates the new ones start
  // from, and the days whose counts they leave.
  await sql`
    CREATE TEMP TABLE reconciliation_before ON COMMIT DROP AS
    SELECT r.resource_type, r.resource_uid, r.enrolment_activity_date, r.student_activity_date
      FROM reconciliation_affected a JOIN reconciliation_item r
        ON r.rto_id = ${p.rto} AND r.resource_type = a.resource_type AND r.resource_uid = a.resource_uid`.execute(db)
  await sql`ALTER TABLE reconciliation_before ADD PRIMARY KEY (resource_type, resource_uid)`.execute(db)
  // The types of which some affected record had an item: only their dates can start from a previous one.
  const existed = new Set(
    (
      await sql<{ resource_type: string }>`SELECT DISTINCT resource_type FROM reconciliation_before`.execute(db)
    ).rows.map((row) => row.resource_type),
  )

  await writeItems(db, inBatch, p.submittedAt)
  await sql`ANALYZE reconciliation_affected, reconciliation_before, reconciliation_dropped_link`.execute(db)
  await analyseWhenStale(db, 'reconciliation_item', records)

  await updateDates(db, p.rto, existed, TEMPORARY)
  await countDays(db, p.rto, TEMPORARY)
}

/**
 * Where the indexing of a submission keeps what it works from: the records it affects, the links its
 * records dropped, and the affected items as they were before it. The one transaction keeps them in
 * temporary tables; the steps of the embedded database in kept tables, one RTO's rows of them
 * (reconciliation-index-steps.repo.ts). Each is something a FROM clause can name with an alias.
 */
export interface IndexingRelations {
  affected: RawBuilder<unknown>
  before: RawBuilder<unknown>
  dropped: RawBuilder<unknown>
}

const TEMPORARY: IndexingRelations = {
  affected: sql`reconciliation_affected`,
  before: sql`reconciliation_before`,
  dropped: sql`reconciliation_dropped_link`,
}

// Derived dates, in dependency order, for the affected records only (docs/decisions.md, "Activity
// dates kept incrementally"): a record's latest enrolment activity is its previous one raised by
// what its changed sources say now, so a busy delivery location is not read link by link for every
// submission that touches it. It is read again in full only when it is new, or when a source that
// may have held its previous date lost that date or its link to it; with no enrolment activity at
// all a record is searched by its own submission day. `existed`: the types of which some affected
// record had an item before (only their dates can start from a previous one). `types`: which of
// DATED_BY's entries to run (the steps run one a step), all of them by default.
export async function updateDates(
  db: Executor,
  rto: string,
  existed: ReadonlySet<string>,
  t: IndexingRelations,
  types: readonly (readonly [ResourceType, readonly ResourceType[]])[] = DATED_BY,
): Promise<void> {
  for (const [type, sources] of types) {
    const ofSources = sql`(${sql.join([...sources])})`
    const searchedBy = sql`coalesce(d.latest, ${submissionDay(sql`r.submitted_at`)})`
    await sql`
      -- The affected sources' links now to targets that had an item before (a new one is read in full
      -- anyway): each source's date now, and before this submission. The inner query is planned on its
      -- own (OFFSET 0), so that it starts from the affected sources: joined with the targets first, it
      -- read every link of a busy delivery location to find the few the batch made.
      WITH source AS (
        ${
          existed.has(type)
            ? sql`SELECT x.uid, x.date, x.before
                    FROM (SELECT l.target_uid AS uid, c.enrolment_activity_date AS date, bs.enrolment_activity_date AS before
                            FROM ${t.affected} s
                            JOIN held_link l ON l.rto_id = ${rto} AND l.source_type = s.resource_type AND l.source_uid = s.resource_uid AND l.target_type = ${type}
                            JOIN reconciliation_item c ON c.rto_id = l.rto_id AND c.resource_type = l.source_type AND c.resource_uid = l.source_uid
                            LEFT JOIN ${t.before} bs ON bs.resource_type = s.resource_type AND bs.resource_uid = s.resource_uid
                           WHERE s.resource_type IN ${ofSources}
                          OFFSET 0) AS x
                    JOIN ${t.before} bt ON bt.resource_type = ${type} AND bt.resource_uid = x.uid`
            : sql`SELECT NULL::uuid AS uid, NULL::date AS date, NULL::date AS before WHERE false`
        }),
      -- Per target: the latest of those dates now, and the latest date a source linked now had and no
      -- longer has (from which the target may have to fall).
      gained AS (
        SELECT uid, max(date) AS latest, max(before) FILTER (WHERE date IS NULL OR date < before) AS fell_from
          FROM source GROUP BY uid),
      -- Per target: the latest date a source of the batch had when it linked to the target and no
      -- longer links to it (moved away, or voided).
      dropped AS (
        SELECT d.target_uid AS uid, max(bs.enrolment_activity_date) AS lost_from
          FROM ${t.dropped} d
          JOIN ${t.before} bs ON bs.resource_type = d.source_type AND bs.resource_uid = d.source_uid
         WHERE d.target_type = ${type} AND d.source_type IN ${ofSources}
           AND NOT EXISTS (SELECT 1 FROM held_link l
                            WHERE l.rto_id = ${rto} AND l.target_type = d.target_type AND l.target_uid = d.target_uid
                              AND l.source_type = d.source_type AND l.source_uid = d.source_uid)
         GROUP BY d.target_uid),
      -- The targets to read in full: new ones, and those a source may have held up (above).
      recount AS MATERIALIZED (
        SELECT a.resource_uid AS uid
          FROM ${t.affected} a
          LEFT JOIN ${t.before} bx ON bx.resource_type = a.resource_type AND bx.resource_uid = a.resource_uid
          LEFT JOIN gained g ON g.uid = a.resource_uid
          LEFT JOIN dropped dr ON dr.uid = a.resource_uid
         WHERE a.resource_type = ${type}
           AND (bx.resource_uid IS NULL OR g.fell_from >= bx.enrolment_activity_date OR dr.lost_from >= bx.enrolment_activity_date)),
      counted AS (
        SELECT n.uid, max(c.enrolment_activity_date) AS latest
          FROM recount n
          JOIN held_link l ON l.rto_id = ${rto} AND l.target_type = ${type} AND l.target_uid = n.uid AND l.source_type IN ${ofSources}
          JOIN reconciliation_item c ON c.rto_id = l.rto_id AND c.resource_type = l.source_type AND c.resource_uid = l.source_uid
         GROUP BY n.uid),
      -- Materialised: its date is used four times below.
      d AS MATERIALIZED (
        SELECT a.resource_uid AS uid,
               CASE WHEN n.uid IS NOT NULL THEN k.latest ELSE greatest(bx.enrolment_activity_date, g.latest) END AS latest
          FROM ${t.affected} a
          LEFT JOIN ${t.before} bx ON bx.resource_type = a.resource_type AND bx.resource_uid = a.resource_uid
          LEFT JOIN gained g ON g.uid = a.resource_uid
          LEFT JOIN recount n ON n.uid = a.resource_uid
          LEFT JOIN counted k ON k.uid = a.resource_uid
         WHERE a.resource_type = ${type})
      UPDATE reconciliation_item r
         SET enrolment_activity_date = d.latest, student_activity_date = ${searchedBy}
        FROM d
       WHERE r.rto_id = ${rto} AND r.resource_type = ${type} AND r.resource_uid = d.uid
         AND (r.enrolment_activity_date IS DISTINCT FROM d.latest OR r.student_activity_date IS DISTINCT FROM ${searchedBy})`.execute(
      db,
    )
  }
}

// Day counts move by what the affected items left and took: each of them counted off the day it
// had, and on the day it has now (a voided record's item is gone, a new record's was not there).
// A count is never stored below one: a day left empty is deleted.
export async function countDays(db: Executor, rto: string, t: IndexingRelations): Promise<void> {
  await sql`
    CREATE TEMP TABLE reconciliation_day_change ON COMMIT DROP AS
    SELECT m.resource_type, m.day, sum(m.items)::int AS items
      FROM (SELECT resource_type, student_activity_date AS day, -1 AS items FROM ${t.before} bb
            UNION ALL
            SELECT r.resource_type, r.student_activity_date, 1
              FROM ${t.affected} a JOIN reconciliation_item r
                ON r.rto_id = ${rto} AND r.resource_type = a.resource_type AND r.resource_uid = a.resource_uid) AS m
     GROUP BY m.resource_type, m.day
    HAVING sum(m.items) <> 0`.execute(db)
  const fewer = sql`c.rto_id = ${rto} AND c.resource_type = d.resource_type AND c.student_activity_date = d.day AND d.items < 0`
  await sql`
    DELETE FROM reconciliation_day_count c USING reconciliation_day_change d WHERE ${fewer} AND c.items + d.items <= 0`.execute(
    db,
  )
  await sql`
    UPDATE reconciliation_day_count c SET items = c.items + d.items FROM reconciliation_day_change d WHERE ${fewer}`.execute(
    db,
  )
  await sql`
    INSERT INTO reconciliation_day_count AS c (rto_id, resource_type, student_activity_date, items)
    SELECT ${rto}, d.resource_type, d.day, d.items FROM reconciliation_day_change d WHERE d.items > 0
    ON CONFLICT (rto_id, resource_type, student_activity_date) DO UPDATE SET items = c.items + excluded.items`.execute(
    db,
  )
}

/** The activity date reconciliation searches a record by, if it has an item. */
export async function itemActivityDate(
  db: ReadDb,
  p: { rto: string; type: string; uid: string },
): Promise<string | null> {
  const result = await readQuery(
    db,
    sql<{ date: string }>`
    SELECT r.student_activity_date::text AS date
      FROM reconciliation_item r
     WHERE r.rto_id = ${p.rto} AND r.resource_type = ${p.type} AND r.resource_uid = ${p.uid}::uuid`,
  )
  return result.rows[0]?.date ?? null
}
