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
// Cross-module read, on purpose: indexing reads the submitted batch's records straight from batches'
// batch_record table, set-based in the statements below, rather than one record at a time through
// the batches module (docs/decisions.md, "Architecture: shared kernel and module boundaries").
import { sql, type RawBuilder } from 'kysely'
import { readQuery, type Executor, type ReadDb } from '../../platform/db/database.ts'
import { referenceFields, resourceTypes, type ResourceType } from '../../domain/resource-types.ts'

export interface ReconciliationTables {
  reconciliation_day_count: { rto_id: string; resource_type: string; student_activity_date: string; items: number }
  held_link: { rto_id: string; source_type: string; source_uid: string; target_type: string; target_uid: string }
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
const DATED_BY: readonly (readonly [ResourceType, readonly ResourceType[]])[] = [
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
function linksOf(): RawBuilder<unknown> {
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

/** From this many records, the statements below run with hash joins only (as validation's set rules do). */
const LARGE_BATCH = 2000

export async function indexSubmission(
  db: Executor,
  p: { rto: string; token: string; submittedAt: Date },
): Promise<void> {
  const inBatch = sql`b.rto_id = ${p.rto} AND b.transaction_batch_token = ${p.token}`
  await sql`CREATE TEMP TABLE reconciliation_affected (resource_type text, resource_uid uuid, PRIMARY KEY (resource_type, resource_uid)) ON COMMIT DROP`.execute(
    db,
  )
  // The table is new and the batch holds a record once: nothing to check for conflicts.
  const batchSize =
    await sql`INSERT INTO reconciliation_affected SELECT b.resource_type, b.resource_uid FROM batch_record b WHERE ${inBatch}`.execute(
      db,
    )
  // The planner has no statistics for rows this transaction wrote (the batch's new versions and
  // links): with a large batch its guesses would pick nested loops that grow with the square of it.
  const large = Number(batchSize.numAffectedRows ?? 0) >= LARGE_BATCH
  if (large) await sql`SET LOCAL enable_nestloop = off`.execute(db)
  await sql`SET LOCAL jit = off`.execute(db) // compiling these statements costs more than running them

  // Links: the batch's records drop the links of their previous versions and add their own (a void adds none).
  await sql`
    WITH old AS (
      DELETE FROM held_link l USING batch_record b
       WHERE ${inBatch} AND l.rto_id = b.rto_id AND l.source_type = b.resource_type AND l.source_uid = b.resource_uid
      RETURNING l.target_type, l.target_uid)
    INSERT INTO reconciliation_affected SELECT DISTINCT target_type, target_uid FROM old ON CONFLICT DO NOTHING`.execute(
    db,
  )
  // Every link of the batch from one scan of it. The statement above removed every link these records
  // made, and no record makes one link twice, so no new link can collide with a stored one: a plain
  // insert, without the cost of checking each row for a conflict, sorted as the primary key is (its
  // pages are then filled one after another rather than at random). Type names sort bytewise: with
  // the database's collation the sort of a large batch's links took longer than inserting them.
  await sql`SET LOCAL work_mem = '64MB'`.execute(db) // sorts 100,000 records' links in memory
  await sql`
    WITH added AS (
      INSERT INTO held_link (rto_id, source_type, source_uid, target_type, target_uid)
      SELECT b.rto_id, b.resource_type, b.resource_uid, t.target_type, t.target_uid
        FROM batch_record b CROSS JOIN ${linksOf()}
       WHERE ${inBatch} AND NOT b.is_voided
       ORDER BY t.target_type COLLATE "C", t.target_uid, b.resource_type COLLATE "C", b.resource_uid
      RETURNING target_type, target_uid)
    INSERT INTO reconciliation_affected SELECT DISTINCT target_type, target_uid FROM added ON CONFLICT DO NOTHING`.execute(
    db,
  )
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

  // The days whose counts may change: every affected item's date before and after.
  await sql`CREATE TEMP TABLE reconciliation_touched_day (resource_type text, day date, PRIMARY KEY (resource_type, day)) ON COMMIT DROP`.execute(
    db,
  )
  await noteTouchedDays(db, p.rto)

  // Items: a void removes the record's item; every other record of the batch gets its latest version's.
  await sql`
    DELETE FROM reconciliation_item r USING batch_record b
     WHERE ${inBatch} AND b.is_voided AND r.rto_id = b.rto_id AND r.resource_type = b.resource_type AND r.resource_uid = b.resource_uid`.execute(
    db,
  )
  await sql`
    INSERT INTO reconciliation_item (rto_id, resource_type, resource_uid, student_activity_date, enrolment_activity_date, submitted_at, change_tracking_identifier)
    SELECT b.rto_id, b.resource_type, b.resource_uid, coalesce(own.date, ${submissionDay(sql`${p.submittedAt}::timestamptz`)}), own.date,
           ${p.submittedAt}::timestamptz, b.change_tracking_identifier
      FROM batch_record b
      -- OFFSET 0 keeps the subquery whole: flattened, its date was worked out (and the body read) once per use above.
      CROSS JOIN LATERAL (SELECT CASE WHEN b.resource_type IN (${sql.join(ENROLMENTS)})
                                      THEN (SELECT max(l.value->>'studentActivityDate') FROM jsonb_array_elements(b.body->'lifecycle') AS l(value))::date END AS date
                          OFFSET 0) AS own
     WHERE ${inBatch} AND NOT b.is_voided
     ORDER BY b.resource_type COLLATE "C", b.resource_uid -- as the primary key is, as above
    ON CONFLICT (rto_id, resource_type, resource_uid) DO UPDATE
       SET student_activity_date = excluded.student_activity_date, enrolment_activity_date = excluded.enrolment_activity_date,
           submitted_at = excluded.submitted_at, change_tracking_identifier = excluded.change_tracking_identifier`.execute(
    db,
  )

  await sql`ANALYZE reconciliation_affected`.execute(db)

  // Derived dates, in dependency order, for the affected records only: the latest enrolment activity
  // of what references them, or their own submission day when there is none.
  for (const [type, sources] of DATED_BY) {
    const searchedBy = sql`coalesce(d.latest, ${submissionDay(sql`r.submitted_at`)})`
    await sql`
      UPDATE reconciliation_item r
         SET enrolment_activity_date = d.latest, student_activity_date = ${searchedBy}
        FROM (SELECT a.resource_uid, max(c.enrolment_activity_date) AS latest
                FROM reconciliation_affected a
                LEFT JOIN held_link l
                  ON l.rto_id = ${p.rto} AND l.target_type = ${type} AND l.target_uid = a.resource_uid AND l.source_type IN (${sql.join([...sources])})
                LEFT JOIN reconciliation_item c
                  ON c.rto_id = l.rto_id AND c.resource_type = l.source_type AND c.resource_uid = l.source_uid
               WHERE a.resource_type = ${type}
               GROUP BY a.resource_uid) AS d
       WHERE r.rto_id = ${p.rto} AND r.resource_type = ${type} AND r.resource_uid = d.resource_uid
         AND (r.enrolment_activity_date IS DISTINCT FROM d.latest OR r.student_activity_date IS DISTINCT FROM ${searchedBy})`.execute(
      db,
    )
  }
  await noteTouchedDays(db, p.rto)
  await sql`
    DELETE FROM reconciliation_day_count c USING reconciliation_touched_day t
     WHERE c.rto_id = ${p.rto} AND c.resource_type = t.resource_type AND c.student_activity_date = t.day`.execute(db)
  await sql`
    INSERT INTO reconciliation_day_count (rto_id, resource_type, student_activity_date, items)
    SELECT ${p.rto}, t.resource_type, t.day, n.items
      FROM reconciliation_touched_day t
      CROSS JOIN LATERAL (SELECT count(*)::int AS items FROM reconciliation_item r
                           WHERE r.rto_id = ${p.rto} AND r.resource_type = t.resource_type AND r.student_activity_date = t.day) AS n
     WHERE n.items > 0`.execute(db)
  if (large) await sql`SET LOCAL enable_nestloop = on`.execute(db)
}

async function noteTouchedDays(db: Executor, rto: string): Promise<void> {
  await sql`
    INSERT INTO reconciliation_touched_day
    SELECT DISTINCT r.resource_type, r.student_activity_date
      FROM reconciliation_affected a JOIN reconciliation_item r
        ON r.rto_id = ${rto} AND r.resource_type = a.resource_type AND r.resource_uid = a.resource_uid
    ON CONFLICT DO NOTHING`.execute(db)
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
