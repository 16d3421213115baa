// The audit entry of a change written by the change's own statement (issue 30, the Student upload against
// the bare route). Owned by modules/audit, which owns audit_entry and audit_day: the function is what it
// publishes for other modules' statements, as a view publishes a read (docs/decisions.md, "The audit
// trail (issue 33)", "Written by the change's own statement").
//
// audit_append moves the day's head and inserts the entry chained to the head it replaced, exactly as
// the one-statement insert of audit.repo.ts does (same number, same SHA-256 over the previous hash, the
// number and the canonical text), but as PL/pgSQL, whose plans are kept per connection, and with the
// status given by the calling statement: the canonical text is p_head || p_status || p_tail, the JSON
// array the service built around the status it could not know yet. A NULL status writes nothing and
// answers NULL (the statement changed nothing: the request's refusal is audited after the answer).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION audit_append(p_status int, p_day date, p_seed text, p_head text, p_tail text, p_id uuid,
                                 p_at timestamptz, p_actor_kind text, p_actor_id text, p_actor_role text,
                                 p_source_address text, p_action text, p_record_type text, p_record_id text,
                                 p_batch_token text, p_rto text, p_outcome text, p_request_id text)
    RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE
      canonical text;
      v_seq bigint;
      v_hash text;
      v_prev text;
    BEGIN
      IF p_status IS NULL THEN
        RETURN NULL;
      END IF;
      canonical := p_head || p_status::text || p_tail;
      INSERT INTO audit_day AS d (day, last_seq, last_hash, prev_hash)
      VALUES (p_day, 1, encode(sha256(convert_to(p_seed || E'\n1\n' || canonical, 'UTF8')), 'hex'), p_seed)
      ON CONFLICT (day) DO UPDATE SET
        last_seq = d.last_seq + 1,
        prev_hash = d.last_hash,
        last_hash = encode(sha256(convert_to(d.last_hash || E'\n' || (d.last_seq + 1)::text || E'\n' || canonical, 'UTF8')), 'hex')
      RETURNING d.last_seq, d.last_hash, d.prev_hash INTO v_seq, v_hash, v_prev;
      INSERT INTO audit_entry (day, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                               record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
      VALUES (p_day, v_seq, p_id, p_at, p_actor_kind, p_actor_id, p_actor_role, p_source_address, p_action,
              p_record_type, p_record_id, p_batch_token, p_rto, p_outcome, p_status, p_request_id, v_prev, v_hash);
      RETURN v_seq;
    END
    $fn$`.execute(db)
}
