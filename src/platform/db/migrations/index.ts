// Every migration, in order. Migrations are only ever added: a released one is never edited, since
// databases in the field have already run it.
import type { Migration } from 'kysely/migration'
import * as foundation from './0001_foundation.ts'
import * as transactionBatches from './0002_transaction_batches.ts'
import * as referenceData from './0003_reference_data.ts'
import * as batchRecordChangeSequence from './0004_batch_record_change_sequence.ts'
import * as referenceDatasetSequence from './0005_reference_dataset_sequence.ts'
import * as batchRecordWithoutForeignKey from './0006_batch_record_without_foreign_key.ts'
import * as validationAndHoldings from './0007_validation_and_holdings.ts'
import * as validationCascades from './0008_validation_cascades.ts'
import * as reconciliation from './0009_reconciliation.ts'
import * as batchReconciledAt from './0010_batch_reconciled_at.ts'
import * as reconciliationDayCount from './0011_reconciliation_day_count.ts'
import * as assessmentsAndDeclarations from './0012_assessments_and_declarations.ts'
import * as uploadBatchRecordFunction from './0013_upload_batch_record_function.ts'
import * as reconciliationEveryRecordDated from './0014_reconciliation_every_record_dated.ts'
import * as natImport from './0015_nat_import.ts'
import * as consoleSession from './0016_console_session.ts'
import * as runResultsByRule from './0017_run_results_by_rule.ts'
import * as batchRecordByChange from './0018_batch_record_by_change.ts'
import * as recordBodiesLz4 from './0019_record_bodies_lz4.ts'
import * as publishedViews from './0020_published_views.ts'
import * as idempotencyKey from './0022_idempotency_key.ts'
import * as eventOutbox from './0023_event_outbox.ts'
import * as heldRecordSearch from './0024_held_record_search.ts'
import * as webhooks from './0025_webhooks.ts'
import * as auditTrail from './0027_audit_trail.ts'
import * as natImportJob from './0028_nat_import_job.ts'
import * as warningAcknowledgement from './0029_warning_acknowledgement.ts'
import * as collectionCalendar from './0030_collection_calendar.ts'
import * as reportedActivityAndBatchSearch from './0031_reported_activity_and_batch_search.ts'
import * as assessmentStage from './0032_assessment_stage.ts'
import * as submitJob from './0034_submit_job.ts'
import * as operatorReadsAcrossRtos from './0035_operator_reads_across_rtos.ts'
import * as batchRecordCount from './0036_batch_record_count.ts'
import * as reconciliationProgress from './0037_reconciliation_progress.ts'
import * as auditAppendFunction from './0040_audit_append_function.ts'
import * as runResultAnchors from './0041_run_result_anchors.ts'
import * as auditLanes from './0042_audit_lanes.ts'
import * as reconciliationStagedLink from './0045_reconciliation_staged_link.ts'
import * as validationRunActivityPeriods from './0046_validation_run_activity_periods.ts'
import * as uploadCountedOnce from './0047_upload_counted_once.ts'
import * as auditAppendMovesHeadFirst from './0048_audit_append_moves_head_first.ts'

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_transaction_batches': transactionBatches,
  '0003_reference_data': referenceData,
  '0004_batch_record_change_sequence': batchRecordChangeSequence,
  '0005_reference_dataset_sequence': referenceDatasetSequence,
  '0006_batch_record_without_foreign_key': batchRecordWithoutForeignKey,
  '0007_validation_and_holdings': validationAndHoldings,
  '0008_validation_cascades': validationCascades,
  '0009_reconciliation': reconciliation,
  '0010_batch_reconciled_at': batchReconciledAt,
  '0011_reconciliation_day_count': reconciliationDayCount,
  '0012_assessments_and_declarations': assessmentsAndDeclarations,
  '0013_upload_batch_record_function': uploadBatchRecordFunction,
  '0014_reconciliation_every_record_dated': reconciliationEveryRecordDated,
  '0015_nat_import': natImport,
  '0016_console_session': consoleSession,
  '0017_run_results_by_rule': runResultsByRule,
  '0018_batch_record_by_change': batchRecordByChange,
  '0019_record_bodies_lz4': recordBodiesLz4,
  '0020_published_views': publishedViews,
  '0022_idempotency_key': idempotencyKey,
  '0023_event_outbox': eventOutbox,
  '0024_held_record_search': heldRecordSearch,
  '0025_webhooks': webhooks,
  '0027_audit_trail': auditTrail,
  '0028_nat_import_job': natImportJob,
  '0029_warning_acknowledgement': warningAcknowledgement,
  '0030_collection_calendar': collectionCalendar,
  '0031_reported_activity_and_batch_search': reportedActivityAndBatchSearch,
  '0032_assessment_stage': assessmentStage,
  '0034_submit_job': submitJob,
  '0035_operator_reads_across_rtos': operatorReadsAcrossRtos,
  '0036_batch_record_count': batchRecordCount,
  '0037_reconciliation_progress': reconciliationProgress,
  '0040_audit_append_function': auditAppendFunction,
  '0041_run_result_anchors': runResultAnchors,
  '0042_audit_lanes': auditLanes,
  '0045_reconciliation_staged_link': reconciliationStagedLink,
  '0046_validation_run_activity_periods': validationRunActivityPeriods,
  '0047_upload_counted_once': uploadCountedOnce,
  '0048_audit_append_moves_head_first': auditAppendMovesHeadFirst,
}
