// Idempotency keys (issue 34): the first answer to a POST sent with an Idempotency-Key, kept 24 hours
// so a retry of the same request gets that answer instead of doing the work again. Owned by
// platform/idempotency (written by platform/http's idempotency hook, pruned by the housekeeping job).
// A key belongs to one client of one RTO; the primary key leads with rto_id (a hot table, placed with
// the RTO's data when sharded). docs/decisions.md, "Idempotency keys (issue 34)".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE idempotency_key (
      rto_id text NOT NULL,
      client_id text NOT NULL,
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      owner uuid NOT NULL,
      state text NOT NULL CHECK (state IN ('in-progress', 'answered')),
      locked_until timestamptz NOT NULL,
      status integer,
      headers jsonb,
      body bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (rto_id, client_id, idempotency_key)
    )`.execute(db)
  await sql`CREATE INDEX idempotency_key_expiry ON idempotency_key (expires_at)`.execute(db)
  await sql`ALTER TABLE housekeeping_run ADD COLUMN idempotency_keys_removed integer NOT NULL DEFAULT 0`.execute(db)
}
