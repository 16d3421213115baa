// audit_append (migrations 0040, 0042) moves the lane's head with an UPDATE, and inserts the head only
// for the day's first entry on the lane (issue 30, the Student upload against the bare route;
// docs/decisions.md, "Seventeenth session"). It was one `INSERT ... ON CONFLICT DO UPDATE` on every
// call: the lane's seed and a first entry's hash computed for a row that exists on every call but the
// first of the day, and a speculative insertion that meets the head row every time. On PostgreSQL at 50
// connections (bench/upload-cost.ts, two runs of four alternating rounds) PostgreSQL's CPU per upload
// was 355 and 396 against 401 and 468 us (medians), 1.11 and 1.12 times the uploads a second; on PGlite,
// one connection and no contention, no difference (985 against 992 uploads a second).
// The chain is the same: the same numbers, the same SHA-256 over the previous hash, the number and the
// canonical text, the head row locked from the move to the commit, so writers of a lane still take
// turns. Replaced in place: the signature stays.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION audit_append(p_status int, p_day date, p_seed text, p_head text, p_tail text, p_id uuid,
                                 p_at timestamptz, p_actor_kind text, p_actor_id text, p_actor_role text,
                                 p_source_address text, p_action text, p_record_type text, p_record_id text,
                                 p_batch_token text, p_rto text, p_outcome text, p_request_id text)
    RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE
      canonical text;
      v_lane smallint;
      v_seed text;
      v_seq bigint;
      v_hash text;
      v_prev text;
    BEGIN
      IF p_status IS NULL THEN
        RETURN NULL;
      END IF;
      canonical := p_head || p_status::text || p_tail;
      v_lane := audit_lane();
      -- The head moved; a day without a head on the lane gets one at number 0 with the lane's seed as
      -- its hash (as insertEntriesOfDay makes it), which the move then takes to 1 in this transaction:
      -- the same first entry as before. Two writers that both find none: the second's insert does
      -- nothing and its move waits for the first's commit.
      LOOP
        UPDATE audit_day AS d SET
          last_seq = d.last_seq + 1,
          prev_hash = d.last_hash,
          last_hash = encode(sha256(convert_to(d.last_hash || E'\n' || (d.last_seq + 1)::text || E'\n' || canonical, 'UTF8')), 'hex')
         WHERE d.day = p_day AND d.lane = v_lane
        RETURNING d.last_seq, d.last_hash, d.prev_hash INTO v_seq, v_hash, v_prev;
        EXIT WHEN FOUND;
        v_seed := audit_lane_seed(p_seed, v_lane);
        INSERT INTO audit_day (day, lane, last_seq, last_hash, prev_hash)
        VALUES (p_day, v_lane, 0, v_seed, v_seed)
        ON CONFLICT (day, lane) DO NOTHING;
      END LOOP;
      INSERT INTO audit_entry (day, lane, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                               record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
      VALUES (p_day, v_lane, v_seq, p_id, p_at, p_actor_kind, p_actor_id, p_actor_role, p_source_address, p_action,
              p_record_type, p_record_id, p_batch_token, p_rto, p_outcome, p_status, p_request_id, v_prev, v_hash);
      RETURN v_seq;
    END
    $fn$`.execute(db)
}
