// The audit trail's lanes (issue 30, the Student upload against the bare route on PostgreSQL). Owned by
// modules/audit. Each UTC day had one hash chain whose head row (audit_day) every writer moved: on
// PostgreSQL an upload's statement (audit_append) held that row from its entry to its commit, WAL flush
// included, so every audited upload of the service queued behind every other. A day now has up to
// AUDIT_LANES independent chains ("lanes"), each exactly like the day's chain was: numbered 1, 2, ...
// without gaps, chained by SHA-256 from a fixed seed per day and lane, its head in audit_day under
// (day, lane). A writer's lane is its database connection's: pg_backend_pid() % 16 (audit_lane()), so a
// connection's transactions never wait for another connection's unless their pids share a lane; on the
// embedded database (one connection) it is always the same lane.
//
// Existing rows become lane 0, whose seed is the day's old seed, so the chains already written verify
// unchanged. Lane k > 0 chains from SHA-256(<the day's seed> ':lane:' k) (audit_lane_seed).
//
// The console's pages read newest first: with several chains a day, (day, seq) is no longer an order a
// person reads as time, so each entry takes a position from one sequence (`pos`, given as it is
// inserted), and pages are keyed by (day, pos). Rows written before keep pos = seq (one chain a day: its
// numbers are its order); the sequence starts above them. pos is not in the hash: it orders a page,
// it is not evidence (the chains are).
//
// docs/decisions.md, "The audit trail's lanes (issue 30)".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // --- audit_day: a head per (day, lane), forward only, lane included.
  await sql`ALTER TABLE audit_day ADD COLUMN lane smallint NOT NULL DEFAULT 0`.execute(db)
  await sql`ALTER TABLE audit_day DROP CONSTRAINT audit_day_pkey`.execute(db)
  await sql`ALTER TABLE audit_day ADD PRIMARY KEY (day, lane)`.execute(db)
  await sql`ALTER TABLE audit_day ALTER COLUMN lane DROP DEFAULT`.execute(db)
  await sql`
    CREATE OR REPLACE FUNCTION audit_day_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF current_setting('vetrs.audit_retention', true) = 'on' THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'audit_day rows are removed by retention only' USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF NEW.day <> OLD.day OR NEW.lane <> OLD.lane OR NEW.last_seq <= OLD.last_seq THEN
        RAISE EXCEPTION 'audit_day only moves forward' USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END
    $$`.execute(db)

  // --- audit_entry: a lane, and a position for the console's order.
  await sql`ALTER TABLE audit_entry ADD COLUMN lane smallint NOT NULL DEFAULT 0`.execute(db)
  await sql`ALTER TABLE audit_entry ALTER COLUMN lane DROP DEFAULT`.execute(db)
  await sql`ALTER TABLE audit_entry ADD COLUMN pos bigint`.execute(db)
  // The one UPDATE the trail ever takes, by the schema's owner in this migration's transaction: it
  // fills the new column and touches no hashed field (the chains verify the same before and after).
  await sql`ALTER TABLE audit_entry DISABLE TRIGGER audit_entry_append_only`.execute(db)
  await sql`UPDATE audit_entry SET pos = seq`.execute(db)
  await sql`ALTER TABLE audit_entry ENABLE TRIGGER audit_entry_append_only`.execute(db)
  await sql`CREATE SEQUENCE audit_entry_pos OWNED BY audit_entry.pos`.execute(db)
  await sql`SELECT setval('audit_entry_pos', coalesce(max(pos), 0) + 1, false) FROM audit_entry`.execute(db)
  await sql`ALTER TABLE audit_entry ALTER COLUMN pos SET DEFAULT nextval('audit_entry_pos')`.execute(db)
  await sql`ALTER TABLE audit_entry ALTER COLUMN pos SET NOT NULL`.execute(db)
  await sql`ALTER TABLE audit_entry DROP CONSTRAINT audit_entry_pkey`.execute(db)
  await sql`ALTER TABLE audit_entry ADD PRIMARY KEY (day, lane, seq)`.execute(db)
  // The console's searches, newest first by (day, pos): an RTO's, a record's, an actor's, and all.
  await sql`DROP INDEX audit_entry_by_rto`.execute(db)
  await sql`DROP INDEX audit_entry_by_record`.execute(db)
  await sql`DROP INDEX audit_entry_by_actor`.execute(db)
  await sql`CREATE INDEX audit_entry_by_rto ON audit_entry (rto_id, day DESC, pos DESC)`.execute(db)
  await sql`CREATE INDEX audit_entry_by_record ON audit_entry (record_id, day DESC, pos DESC) WHERE record_id IS NOT NULL`.execute(
    db,
  )
  await sql`CREATE INDEX audit_entry_by_actor ON audit_entry (actor_id, day DESC, pos DESC)`.execute(db)
  await sql`CREATE INDEX audit_entry_by_pos ON audit_entry (day DESC, pos DESC)`.execute(db)

  // --- The lane rule and the lane's seed, in SQL, so every writer (audit_append, the one-statement
  // insert, the group-commit writer's transaction) picks the lane the same way, on its own connection.
  await sql`
    CREATE FUNCTION audit_lane() RETURNS smallint LANGUAGE sql STABLE AS $$
      SELECT (pg_backend_pid() % 16)::smallint
    $$`.execute(db)
  await sql`
    CREATE FUNCTION audit_lane_seed(p_day_seed text, p_lane smallint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN p_lane = 0 THEN p_day_seed
                  ELSE encode(sha256(convert_to(p_day_seed || ':lane:' || p_lane::text, 'UTF8')), 'hex') END
    $$`.execute(db)

  // --- audit_append (migration 0040), the same signature (prepared statements keep working), on the
  // caller's lane: p_seed is still the day's seed, the lane's seed is made from it.
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
      v_seed := audit_lane_seed(p_seed, v_lane);
      INSERT INTO audit_day AS d (day, lane, last_seq, last_hash, prev_hash)
      VALUES (p_day, v_lane, 1, encode(sha256(convert_to(v_seed || E'\n1\n' || canonical, 'UTF8')), 'hex'), v_seed)
      ON CONFLICT (day, lane) DO UPDATE SET
        last_seq = d.last_seq + 1,
        prev_hash = d.last_hash,
        last_hash = encode(sha256(convert_to(d.last_hash || E'\n' || (d.last_seq + 1)::text || E'\n' || canonical, 'UTF8')), 'hex')
      RETURNING d.last_seq, d.last_hash, d.prev_hash INTO v_seq, v_hash, v_prev;
      INSERT INTO audit_entry (day, lane, seq, id, at, actor_kind, actor_id, actor_role, source_address, action,
                               record_type, record_id, batch_token, rto_id, outcome, status, request_id, prev_hash, hash)
      VALUES (p_day, v_lane, v_seq, p_id, p_at, p_actor_kind, p_actor_id, p_actor_role, p_source_address, p_action,
              p_record_type, p_record_id, p_batch_token, p_rto, p_outcome, p_status, p_request_id, v_prev, v_hash);
      RETURN v_seq;
    END
    $fn$`.execute(db)
}
