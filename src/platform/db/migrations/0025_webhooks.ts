// Webhooks (issue 33), owned by modules/webhooks. webhook_endpoint: an RTO's registered endpoints,
// each with its signing secret (sealed, see secret-box.ts), the previous secret during a rotation, and
// where its delivery has got to in the RTO's event stream (position: the last sequence handled; the
// next matching event is held until delivered, retried per the schedule, or the endpoint disabled).
// webhook_attempt: the delivery log, one row per attempt (kept for WEBHOOK_LOG_RETENTION_DAYS by
// housekeeping). webhook_redelivery: events a client asked to have sent again, waiting for the worker.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoint (
      rto_id text NOT NULL,
      endpoint_id uuid NOT NULL,
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      event_types text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      disabled_at timestamptz,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_until timestamptz,
      position bigint NOT NULL,
      failed_attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      created_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, endpoint_id)
    )`.execute(db)
  await sql`CREATE INDEX webhook_endpoint_by_rto ON webhook_endpoint (rto_id, created_at)`.execute(db)
  await sql`CREATE INDEX webhook_endpoint_due ON webhook_endpoint (next_attempt_at) WHERE enabled`.execute(db)
  await sql`
    CREATE TABLE webhook_attempt (
      rto_id text NOT NULL,
      attempt_id uuid NOT NULL,
      endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_sequence bigint NOT NULL,
      event_type text NOT NULL,
      attempt integer NOT NULL,
      redelivery boolean NOT NULL,
      attempted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      succeeded boolean NOT NULL,
      status_code integer,
      error text,
      latency_ms integer NOT NULL,
      PRIMARY KEY (rto_id, attempt_id),
      FOREIGN KEY (rto_id, endpoint_id) REFERENCES webhook_endpoint (rto_id, endpoint_id) ON DELETE CASCADE
    )`.execute(db)
  await sql`CREATE INDEX webhook_attempt_by_endpoint ON webhook_attempt (rto_id, endpoint_id, attempted_at DESC)`.execute(
    db,
  )
  await sql`CREATE INDEX webhook_attempt_by_time ON webhook_attempt (attempted_at)`.execute(db)
  await sql`
    CREATE TABLE webhook_redelivery (
      rto_id text NOT NULL,
      endpoint_id uuid NOT NULL,
      event_sequence bigint NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      PRIMARY KEY (rto_id, endpoint_id, event_sequence),
      FOREIGN KEY (rto_id, endpoint_id) REFERENCES webhook_endpoint (rto_id, endpoint_id) ON DELETE CASCADE
    )`.execute(db)
}
