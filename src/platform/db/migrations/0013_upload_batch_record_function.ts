// The upload of one record as a PL/pgSQL function. Its two statements (check and share-lock the open
// batch, then insert or replace the record) are planned once per connection and kept, where the same
// SQL sent as one statement was planned on every upload: on embedded PGlite, planning cost a third
// of the upload. The function keeps the statement's semantics: the batch row is share-locked
// (FOR KEY SHARE) before the write, so a submit (FOR UPDATE) waits for uploads in flight and an upload
// that waited for a submit sees it. Answers true (created), false (replaced) or null (no open batch).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION upload_batch_record(p_rto text, p_token text, p_jurisdiction text, p_type text, p_uid uuid,
                                        p_change_tracking_identifier text, p_voided boolean, p_body jsonb, p_client text)
    RETURNS boolean LANGUAGE plpgsql AS $fn$
    DECLARE
      created boolean;
    BEGIN
      PERFORM FROM transaction_batch
        WHERE rto_id = p_rto AND transaction_batch_token = p_token AND status = 'NotSubmitted'
          AND (p_jurisdiction IS NULL OR jurisdiction = p_jurisdiction)
        FOR KEY SHARE;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      INSERT INTO batch_record AS r (rto_id, transaction_batch_token, resource_type, resource_uid, change_tracking_identifier,
                                     is_voided, body, uploaded_by_client, uploaded_at)
      VALUES (p_rto, p_token, p_type, p_uid, p_change_tracking_identifier, p_voided, p_body, p_client, now())
      ON CONFLICT (rto_id, transaction_batch_token, resource_type, resource_uid) DO UPDATE
        SET change_tracking_identifier = excluded.change_tracking_identifier, is_voided = excluded.is_voided,
            body = excluded.body, uploaded_by_client = excluded.uploaded_by_client, uploaded_at = excluded.uploaded_at,
            change_seq = excluded.change_seq
      RETURNING (r.xmax = 0) INTO created;
      RETURN created;
    END
    $fn$`.execute(db)
}
