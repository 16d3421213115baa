// The database type Kysely checks queries against. Each module adds its own tables to this interface
// by declaration merging (`declare module '.../schema.ts' { interface Database { ... } }`), so the
// platform never has to know the modules that sit on it.
//
// Every table has one owner, the only code that writes it and that declares it here; other modules
// use it through the owner's index.ts (docs/decisions.md, "Architecture: shared kernel and module
// boundaries"):
//   transaction_batch, batch_record                      modules/batches (batches.repo.ts, batch-records.repo.ts)
//   reference_record_version                             modules/reference-data
//   validation_run, validation_result                    modules/validation
//   held_record, reporting_period_submission             modules/holdings
//   held_link, reconciliation_item,
//     reconciliation_day_count                           modules/reconciliation (reconciliation-index.repo.ts)
//   assessment_run, assessment_result                    modules/assessment
//   declaration                                          modules/declarations
//   housekeeping_run                                     modules/housekeeping
//   nat_import                                           modules/nat-bridge
//   api_client, token_issuance, signing_key              platform/auth
//   the pgboss schema                                    platform/queue (pg-boss)
// Reads of another module's table are allowed only set-based, for speed, and each says so where it
// happens: validation's set rules and run fingerprint (batch_record, held_record, transaction_batch),
// assessment's rules and run basis (held_record, reporting_period_submission), declarations' nil
// activity check (held_record), holdings' promotion (batch_record) and reconciliation's index
// (batch_record).
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging needs an interface, and the modules fill it
export interface Database {}
