// A batch's records counted by type, kept (issue 32, "Performance": the console's batch page, batch
// list and home page counted a 110,000-record batch by type on every view, 48 to 61 ms of the
// server's time; the validation status summed every record's change number for its fingerprint).
// Owned by modules/batches, which owns batch_record.
//
// batch_record_count holds deltas, not totals: each statement that inserts, replaces or deletes batch
// records adds one row per batch and type it touched (+/- records, +/- change numbers), written by
// statement-level triggers from the statement's transition tables, so every path that writes
// batch_record (the upload function, the set-based upload, the bulk insert, record deletes, discard)
// keeps it, in its own transaction: under any snapshot the sums equal a fresh count of the records
// that snapshot sees. Rows are only inserted, never updated, so concurrent uploads to one batch never
// wait on a counter row (the contention a single counter per batch would bring: docs/decisions.md).
// To keep the rows per batch few, about one statement in COMPACT_EVERY folds the batch's committed
// deltas into one row per type; it takes only rows no other compaction holds (SKIP LOCKED), so it
// never waits either, and rows of transactions still in flight are invisible to it and stay.
//
// batch_fingerprint (migration 0020) now sums these rows instead of reading every record's change
// number: the same content version, count and sum of change numbers, in the same snapshot.
import { sql, type Kysely } from 'kysely'

/** About one statement in this many folds its batch's deltas (by the delta sequence's value). */
const COMPACT_EVERY = 16

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE SEQUENCE batch_record_count_delta_seq`.execute(db)
  await sql`
    CREATE TABLE batch_record_count (
      rto_id text NOT NULL,
      transaction_batch_token text NOT NULL,
      resource_type text NOT NULL,
      delta_id bigint NOT NULL DEFAULT nextval('batch_record_count_delta_seq'),
      record_count bigint NOT NULL,
      change_seq_sum numeric NOT NULL,
      PRIMARY KEY (rto_id, transaction_batch_token, resource_type, delta_id)
    )`.execute(db)
  await sql`
    CREATE FUNCTION compact_batch_record_count(p_rto text, p_token text) RETURNS void LANGUAGE sql AS $fn$
      WITH gone AS (
        DELETE FROM batch_record_count
         WHERE rto_id = p_rto AND transaction_batch_token = p_token
           AND delta_id IN (SELECT delta_id FROM batch_record_count
                             WHERE rto_id = p_rto AND transaction_batch_token = p_token
                               FOR UPDATE SKIP LOCKED)
        RETURNING resource_type, record_count, change_seq_sum)
      INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
      SELECT p_rto, p_token, resource_type, sum(record_count), sum(change_seq_sum) FROM gone
       GROUP BY resource_type HAVING sum(record_count) <> 0 OR sum(change_seq_sum) <> 0
    $fn$`.execute(db)
  // One function for the three triggers: each names only the transition tables its own trigger has
  // (PL/pgSQL plans a statement when it first runs it, so the other branches' names are never looked up).
  await sql`
    CREATE FUNCTION batch_record_counted() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      fold boolean;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        WITH added AS (
          INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
          SELECT rto_id, transaction_batch_token, resource_type, count(*), sum(change_seq) FROM new_rows
           GROUP BY rto_id, transaction_batch_token, resource_type
          RETURNING delta_id)
        SELECT bool_or(delta_id % ${sql.lit(COMPACT_EVERY)} = 0) INTO fold FROM added;
      ELSIF TG_OP = 'UPDATE' THEN
        -- A replacement keeps the count and moves the change number; any other update is counted exactly too.
        WITH added AS (
          INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
          SELECT rto_id, transaction_batch_token, resource_type, sum(n), sum(s)
            FROM (SELECT rto_id, transaction_batch_token, resource_type, 1 AS n, change_seq AS s FROM new_rows
                  UNION ALL
                  SELECT rto_id, transaction_batch_token, resource_type, -1, -change_seq FROM old_rows) AS moved
           GROUP BY rto_id, transaction_batch_token, resource_type
          HAVING sum(n) <> 0 OR sum(s) <> 0
          RETURNING delta_id)
        SELECT bool_or(delta_id % ${sql.lit(COMPACT_EVERY)} = 0) INTO fold FROM added;
      ELSE
        WITH added AS (
          INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
          SELECT rto_id, transaction_batch_token, resource_type, -count(*), -sum(change_seq) FROM old_rows
           GROUP BY rto_id, transaction_batch_token, resource_type
          RETURNING delta_id)
        SELECT bool_or(delta_id % ${sql.lit(COMPACT_EVERY)} = 0) INTO fold FROM added;
      END IF;
      IF fold THEN
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
  await sql`
    CREATE TRIGGER batch_record_count_insert AFTER INSERT ON batch_record
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION batch_record_counted()`.execute(db)
  await sql`
    CREATE TRIGGER batch_record_count_update AFTER UPDATE ON batch_record
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION batch_record_counted()`.execute(
    db,
  )
  await sql`
    CREATE TRIGGER batch_record_count_delete AFTER DELETE ON batch_record
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION batch_record_counted()`.execute(db)
  // The records already there, counted once (the migration's transaction holds the triggers' lock on
  // batch_record, so no upload falls between this count and the triggers).
  await sql`
    INSERT INTO batch_record_count (rto_id, transaction_batch_token, resource_type, record_count, change_seq_sum)
    SELECT rto_id, transaction_batch_token, resource_type, count(*), sum(change_seq) FROM batch_record
     GROUP BY rto_id, transaction_batch_token, resource_type`.execute(db)
  await sql`
    CREATE OR REPLACE VIEW batch_fingerprint AS
    SELECT b.rto_id, b.transaction_batch_token, b.content_version, f.record_count, f.change_seq_sum
      FROM transaction_batch b,
           LATERAL (SELECT coalesce(sum(c.record_count), 0)::bigint AS record_count,
                           coalesce(sum(c.change_seq_sum), 0) AS change_seq_sum
                      FROM batch_record_count c
                     WHERE c.rto_id = b.rto_id AND c.transaction_batch_token = b.transaction_batch_token) f`.execute(db)
}
