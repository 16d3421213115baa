// The event outbox (issue 33), owned by modules/events: one row per event, written by the owner of the
// change in the change's own transaction, numbered per RTO. event_stream holds each RTO's last number;
// taking the next one updates that row, whose lock is then held until the transaction ends, so the
// RTO's events commit in the order of their numbers and a reader that has seen number N never later
// finds a smaller one appear (docs/decisions.md, "Events: the outbox and the change feed (issue 33)").
// event_relay_position is where the relay to the broker has got to, per RTO.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE event_stream (
      rto_id text PRIMARY KEY,
      last_sequence bigint NOT NULL
    )`.execute(db)
  await sql`
    CREATE TABLE event_outbox (
      rto_id text NOT NULL,
      sequence bigint NOT NULL,
      event_id uuid NOT NULL,
      type text NOT NULL,
      subject text NOT NULL,
      time timestamptz NOT NULL DEFAULT clock_timestamp(),
      jurisdiction text,
      reporting_period integer,
      data jsonb NOT NULL,
      PRIMARY KEY (rto_id, sequence),
      UNIQUE (rto_id, event_id)
    )`.execute(db)
  await sql`
    CREATE TABLE event_relay_position (
      rto_id text NOT NULL,
      relay text NOT NULL,
      last_sequence bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, relay)
    )`.execute(db)
}
