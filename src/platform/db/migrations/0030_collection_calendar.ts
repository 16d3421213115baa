// The collection calendar (issue 32 item 8), owned by modules/declarations: per jurisdiction and
// reporting period an optional due date that replaces the spec's rule (collection_due_date), per RTO
// an extension of a period's due date (declaration_extension), and the due-soon and overdue notices
// already recorded as events (declaration_due_notice, one row per RTO, jurisdiction, period, kind and
// due date, so a rerun of the daily job adds nothing). docs/decisions.md, "The operator's desk".
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE collection_due_date (
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      due_date date NOT NULL,
      reason text NOT NULL,
      set_by text NOT NULL,
      set_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (jurisdiction, reporting_period)
    )`.execute(db)
  await sql`
    CREATE TABLE declaration_extension (
      rto_id text NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      due_date date NOT NULL,
      reason text NOT NULL,
      granted_by text NOT NULL,
      granted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, jurisdiction, reporting_period)
    )`.execute(db)
  await sql`CREATE INDEX declaration_extension_by_period ON declaration_extension (jurisdiction, reporting_period, rto_id)`.execute(
    db,
  )
  await sql`
    CREATE TABLE declaration_due_notice (
      rto_id text NOT NULL,
      jurisdiction text NOT NULL,
      reporting_period integer NOT NULL,
      kind text NOT NULL CHECK (kind IN ('due-soon', 'overdue')),
      due_date date NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rto_id, jurisdiction, reporting_period, kind, due_date)
    )`.execute(db)
}
