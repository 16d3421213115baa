// Console sessions a person or an operator can end (issue 20): the sealed session cookie names its row
// here, and a page is served only while the row says the session is going on. Owned by
// modules/console. Holds who the person is (subject, name, role, RTO), never a token or an e-mail.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE console_session (
      session_id text PRIMARY KEY,
      subject text NOT NULL,
      name text NOT NULL,
      role text NOT NULL,
      rto_id text,
      started_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz,
      ended_by text
    )`.execute(db)
  await sql`CREATE INDEX console_session_going_on ON console_session (last_seen_at) WHERE ended_at IS NULL`.execute(db)
}
