// The database type Kysely checks queries against. Each module adds its own tables to this interface
// by declaration merging (`declare module '.../schema.ts' { interface Database { ... } }`), so the
// platform never has to know the modules that sit on it.
//
// Every table has one owner, the only code that writes it and that declares it here; other modules
// use it through the owner's index.ts (docs/decisions.md, "Architecture: shared kernel and module
// boundaries"):
//   transaction_batch, batch_record,
//     batch_record_count                                 modules/batches (batches.repo.ts, batch-records.repo.ts)
//   reference_record_version                             modules/reference-data
//   validation_run, validation_result                    modules/validation
//   held_record, reporting_period_submission,
//     reported_activity, rto_jurisdiction_submission,
//     submit_job                                         modules/holdings
//   held_link, reconciliation_item,
//     reconciliation_day_count                           modules/reconciliation (reconciliation-index.repo.ts)
//   reconciliation_progress, reconciliation_progress_affected,
//     reconciliation_progress_dropped_link,
//     reconciliation_progress_before                     modules/reconciliation (reconciliation-index-steps.repo.ts)
//   reconciliation_staged_link                           modules/reconciliation (reconciliation-index.repo.ts)
//   assessment_run, assessment_result,
//     assessment_stage                                   modules/assessment
//   declaration, collection_due_date,
//     declaration_extension, declaration_due_notice,
//     warning_acknowledgement                            modules/declarations
//   housekeeping_run                                     modules/housekeeping
//   audit_entry, audit_day                               modules/audit (append-only; entries written through
//                                                          recordAudit, by the HTTP audit hook and the CLI)
//   nat_import, nat_import_job                           modules/nat-bridge
//   event_outbox, event_stream, event_relay_position     modules/events (written through recordEvent by
//                                                          the owner of each change, in its transaction)
//   webhook_endpoint, webhook_attempt, webhook_redelivery  modules/webhooks
//   api_client, token_issuance, signing_key              platform/auth
//   idempotency_key                                      platform/idempotency
//   the pgboss schema                                    platform/queue (pg-boss)
// Another module's data is read in SQL only set-based, for speed, and only through a view its owner
// publishes (migrations/0020_published_views.ts; test/sql-boundaries.test.ts checks it): batches
// publishes batch_content, batch_fingerprint and batch_change_marker (0032), holdings held_current, held_in_submission and
// period_last_submission. Validation's set rules and run fingerprint, assessment's rules and run
// basis, declarations' nil activity check, holdings' promotion and reconciliation's index read them.
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging needs an interface, and the modules fill it
export interface Database {}

/**
 * The column a sharded PostgreSQL (Citus) distributes the hot tables by: every RTO's data on one node,
 * every query of a request routed to that node (docs/operations.md, "Beyond one primary").
 */
export const DISTRIBUTION_COLUMN = 'rto_id'

/**
 * Where a table goes when the database is sharded by RTO:
 *   hot        distributed by DISTRIBUTION_COLUMN, all co-located: its primary key leads with it, and
 *              every unique index and every foreign key includes it (Citus enforces uniqueness only
 *              within a shard, and joins only co-located rows)
 *   reference  a copy on every node (a Citus reference table): small, changed rarely, read next to
 *              hot tables
 *   local      on the coordinator only: never joined with a hot table in one statement
 */
export type Placement = 'hot' | 'reference' | 'local'

/**
 * Every table of the public schema, placed: the one list (docs/operations.md refers to it). The type
 * requires every table a module declares in Database to be here; test/schema-catalogue.test.ts reads
 * the migrated database's catalogue and fails on a table missing from it (one a migration creates
 * that no module declares), and on a hot table whose keys do not lead with DISTRIBUTION_COLUMN.
 */
export const TABLE_PLACEMENT = {
  transaction_batch: 'hot',
  batch_record: 'hot',
  batch_record_count: 'hot',
  nat_import: 'hot',
  nat_import_job: 'hot',
  validation_run: 'hot',
  validation_result: 'hot',
  held_record: 'hot',
  reporting_period_submission: 'hot',
  reported_activity: 'hot',
  rto_jurisdiction_submission: 'hot',
  submit_job: 'hot',
  held_link: 'hot',
  reconciliation_item: 'hot',
  reconciliation_day_count: 'hot',
  reconciliation_progress: 'hot',
  reconciliation_progress_affected: 'hot',
  reconciliation_progress_dropped_link: 'hot',
  reconciliation_progress_before: 'hot',
  reconciliation_staged_link: 'hot',
  assessment_run: 'hot',
  assessment_result: 'hot',
  assessment_stage: 'hot',
  declaration: 'hot',
  declaration_extension: 'hot',
  declaration_due_notice: 'hot',
  collection_due_date: 'reference',
  warning_acknowledgement: 'hot',
  event_outbox: 'hot',
  event_stream: 'hot',
  event_relay_position: 'hot',
  webhook_endpoint: 'hot',
  webhook_attempt: 'hot',
  webhook_redelivery: 'hot',
  idempotency_key: 'hot',
  reference_record_version: 'reference',
  api_client: 'local',
  console_session: 'local',
  token_issuance: 'local',
  signing_key: 'local',
  housekeeping_run: 'local',
  // One hash chain per day across every RTO: kept whole on the coordinator (docs/decisions.md, "The audit trail (issue 33)").
  audit_entry: 'local',
  audit_day: 'local',
  kysely_migration: 'local',
  kysely_migration_lock: 'local',
} as const satisfies Record<keyof Database | 'kysely_migration' | 'kysely_migration_lock', Placement>

/** Schemas other than public, placed as a whole: pg-boss's job queue stays on the coordinator. */
export const SCHEMA_PLACEMENT: Record<string, Placement> = { pgboss: 'local' }
