// The audit trail (issue 33), owned by modules/audit: who read or changed what, when, from where.
// audit_entry is append-only: one row per entry, numbered per UTC day (day, seq), each entry's hash the
// SHA-256 of the previous entry's hash (a fixed seed for a day's first), its number and its canonical
// text, so an edited, removed or inserted entry breaks the day's chain. audit_day holds each day's
// head (last number, last hash, and the hash before it); taking the next number updates that row in
// the same statement that inserts the entry (or, for several entries at once, in the transaction that
// inserts them, the head row locked first), so two writers cannot fork a day's chain.
//
// Triggers refuse UPDATE and TRUNCATE of audit_entry always, and DELETE unless the transaction says it
// is the retention job (SET LOCAL vetrs.audit_retention = 'on'); audit_day rows may only move forward.
// They run on the embedded database and on PostgreSQL alike (PL/pgSQL). They make a mistake or a
// careless script fail; they do not stop someone who can alter the schema, which the hash chain shows
// (docs/decisions.md, "The audit trail (issue 33)").
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE audit_day (
      day date PRIMARY KEY,
      last_seq bigint NOT NULL,
      last_hash text NOT NULL,
      prev_hash text NOT NULL
    )`.execute(db)
  await sql`
    CREATE TABLE audit_entry (
      day date NOT NULL,
      seq bigint NOT NULL,
      id uuid NOT NULL,
      at timestamptz NOT NULL,
      actor_kind text NOT NULL CHECK (actor_kind IN ('client', 'person', 'operator', 'system')),
      actor_id text NOT NULL,
      actor_role text,
      source_address text,
      action text NOT NULL,
      record_type text,
      record_id text,
      batch_token text,
      rto_id text,
      outcome text NOT NULL CHECK (outcome IN ('success', 'refused', 'failed')),
      status integer,
      request_id text,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      PRIMARY KEY (day, seq),
      UNIQUE (id)
    )`.execute(db)
  // The console's searches: an RTO's entries (the authorised person's page always filters by it), a
  // record's, an actor's; each newest first by the primary key's order.
  await sql`CREATE INDEX audit_entry_by_rto ON audit_entry (rto_id, day DESC, seq DESC)`.execute(db)
  await sql`CREATE INDEX audit_entry_by_record ON audit_entry (record_id, day DESC, seq DESC) WHERE record_id IS NOT NULL`.execute(
    db,
  )
  await sql`CREATE INDEX audit_entry_by_actor ON audit_entry (actor_id, day DESC, seq DESC)`.execute(db)

  await sql`
    CREATE FUNCTION audit_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('vetrs.audit_retention', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'audit_entry is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$`.execute(db)
  await sql`
    CREATE TRIGGER audit_entry_append_only BEFORE UPDATE OR DELETE ON audit_entry
      FOR EACH ROW EXECUTE FUNCTION audit_entry_append_only()`.execute(db)
  await sql`
    CREATE TRIGGER audit_entry_no_truncate BEFORE TRUNCATE ON audit_entry
      FOR EACH STATEMENT EXECUTE FUNCTION audit_entry_append_only()`.execute(db)
  await sql`
    CREATE FUNCTION audit_day_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF current_setting('vetrs.audit_retention', true) = 'on' THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'audit_day rows are removed by retention only' USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF NEW.day <> OLD.day OR NEW.last_seq <= OLD.last_seq THEN
        RAISE EXCEPTION 'audit_day only moves forward' USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END
    $$`.execute(db)
  await sql`
    CREATE TRIGGER audit_day_forward_only BEFORE UPDATE OR DELETE ON audit_day
      FOR EACH ROW EXECUTE FUNCTION audit_day_forward_only()`.execute(db)

  // The housekeeping run says how many days of audit entries it removed.
  await sql`ALTER TABLE housekeeping_run ADD COLUMN audit_days_removed integer NOT NULL DEFAULT 0`.execute(db)
}
