// The Student upload's share of the database made smaller (issue 30, the upload against the bare route;
// docs/decisions.md, "Seventeenth session"). Measured on PostgreSQL at 50 connections, the kept counts
// (migration 0036) were about a third of PostgreSQL's CPU per upload: an upload is one
// `INSERT ... ON CONFLICT DO UPDATE`, which fires the statement triggers of both INSERT and UPDATE, and
// each ran a CTE that returned its delta ids to decide whether to fold. Two changes, the same counts:
//  - upload_batch_record inserts first (ON CONFLICT DO NOTHING) and updates only when the record was
//    there: a new record, the usual upload, fires the INSERT trigger alone. The batch is share-locked
//    first as before. A record deleted between the two (its insert met it, its update finds it gone) is
//    inserted again, so the function still answers true (created) or false (replaced), never nothing;
//  - batch_record_counted writes its delta with a plain INSERT ... SELECT, returns at once when an
//    UPDATE statement changed no row (the upsert of a new record), and folds when the delta ids it took
//    include a multiple of COMPACT_EVERY, read from the sequence (the ids one statement takes are
//    consecutive unless another transaction takes some meanwhile: still about one statement in sixteen).
// Both are replaced in place: the triggers, the prepared statements and the function's signature stay.
import { sql, type Kysely } from 'kysely'

/** As migration 0036: about one statement in this many folds its batch's deltas. */
const COMPACT_EVERY = 16

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION upload_batch_record(p_rto text, p_token text, p_jurisdiction text, p_type text, p_uid uuid,
                                                   p_change_tracking_identifier text, p_voided boolean, p_body jsonb, p_client text)
    RETURNS boolean LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM FROM transaction_batch
        WHERE rto_id = p_rto AND transaction_batch_token = p_token AND status = 'NotSubmitted'
          AND (p_jurisdiction IS NULL OR jurisdiction = p_jurisdiction)
        FOR KEY SHARE;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      LOOP
        INSERT INTO batch_record (rto_id, transaction_batch_token, resource_type, resource_uid, change_tracking_identifier,
                                  is_voided, body, uploaded_by_client, uploaded_at)
        VALUES (p_rto, p_token, p_type, p_uid, p_change_tracking_identifier, p_voided, p_body, p_client, now())
        ON CONFLICT (rto_id, transaction_batch_token, resource_type, resource_uid) DO NOTHING;
        IF FOUND THEN
          RETURN true;
        END IF;
        UPDATE batch_record
           SET change_tracking_identifier = p_change_tracking_identifier, is_voided = p_voided, body = p_body,
               uploaded_by_client = p_client, uploaded_at = now(), change_seq = nextval('batch_record_change_seq')
         WHERE rto_id = p_rto AND transaction_batch_token = p_token AND resource_type = p_type AND resource_uid = p_uid;
        IF FOUND THEN
          RETURN false;
        END IF;
      END LOOP;
    END
    $fn$`.execute(db)
  // One function for the three triggers, as in 0036: each branch names only its own trigger's transition
  // tables (PL/pgSQL plans a statement when it first runs it).
  await sql`
    CREATE OR REPLACE FUNCTION batch_record_counted() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      deltas bigint;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
        SELECT rto_id, transaction_batch_token, resource_type, count(*), sum(change_seq) FROM new_rows
         GROUP BY rto_id, transaction_batch_token, resource_type;
      ELSIF TG_OP = 'UPDATE' THEN
        IF NOT EXISTS (SELECT FROM new_rows) THEN
          RETURN NULL;
        END IF;
        -- A replacement keeps the count and moves the change number; any other update is counted exactly too.
        INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
        SELECT rto_id, transaction_batch_token, resource_type, sum(n), sum(s)
          FROM (SELECT rto_id, transaction_batch_token, resource_type, 1 AS n, change_seq AS s FROM new_rows
                UNION ALL
                SELECT rto_id, transaction_batch_token, resource_type, -1, -change_seq FROM old_rows) AS moved
         GROUP BY rto_id, transaction_batch_token, resource_type
        HAVING sum(n) <> 0 OR sum(s) <> 0;
      ELSE
        INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
        SELECT rto_id, transaction_batch_token, resource_type, -count(*), -sum(change_seq) FROM old_rows
         GROUP BY rto_id, transaction_batch_token, resource_type;
      END IF;
      GET DIAGNOSTICS deltas = ROW_COUNT;
      -- The ids this statement took end at currval: one of them is a multiple of COMPACT_EVERY.
      IF deltas > 0 AND currval('batch_record_count_delta_seq') % ${sql.lit(COMPACT_EVERY)} < deltas THEN
        IF TG_OP = 'DELETE' THEN
          PERFORM compact_batch_record_count(rto_id, transaction_batch_token)
             FROM (SELECT DISTINCT rto_id, transaction_batch_token FROM old_rows) AS touched;
        ELSE
          PERFORM compact_batch_record_count(rto_id, transaction_batch_token)
             FROM (SELECT DISTINCT rto_id, transaction_batch_token FROM new_rows) AS touched;
        END IF;
      END IF;
      RETURN NULL;
    END
    $fn$`.execute(db)
}
