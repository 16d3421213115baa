// API clients, token signing keys, the token issuance audit trail and the housekeeping job's run log.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE api_client (
      client_id text PRIMARY KEY,
      rto_id text NOT NULL,
      secret_hash text NOT NULL,
      scopes text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      is_demo boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      secret_rotated_at timestamptz,
      disabled_at timestamptz
    )`.execute(db)
  await sql`CREATE INDEX api_client_rto_idx ON api_client (rto_id, client_id)`.execute(db)
  await sql`
    CREATE TABLE signing_key (
      kid text PRIMARY KEY,
      algorithm text NOT NULL,
      private_key_pem text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db)
  // Who obtained a token and when; never the token itself. Pruned by the housekeeping job.
  await sql`
    CREATE TABLE token_issuance (
      token_id text PRIMARY KEY,
      client_id text NOT NULL,
      rto_id text NOT NULL,
      issued_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`.execute(db)
  await sql`CREATE INDEX token_issuance_expiry_idx ON token_issuance (expires_at)`.execute(db)
  await sql`
    CREATE TABLE housekeeping_run (
      job_id text PRIMARY KEY,
      ran_at timestamptz NOT NULL DEFAULT now(),
      token_issuances_removed integer NOT NULL
    )`.execute(db)
}
