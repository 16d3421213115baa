// The client: the service's operations (client.ts) and the standard workflows as one call each. The
// workflows take a VetrsOperations, so they never import the class that calls them.
import { VetrsOperations } from './client.ts'
import type { AssessmentResult, ValidationResult } from './client.ts'
import type { Jurisdiction } from './resource.ts'
import type { ResourceRecord } from './resources.ts'
import type { RequestOptions } from './request-options.ts'
import {
  awaitReconciliation,
  groupedValidationResults,
  submitRecords,
  validate,
  type GroupedResults,
  type SubmitOptions,
  type SubmitOutcome,
  type ValidateOutcome,
} from './workflows/submit.ts'
import { voidRecords, type VoidOutcome, type VoidRequest } from './workflows/void.ts'
import {
  reconcile,
  type ReconcileOptions,
  type ReconcileOutcome,
  type ReconcileRequest,
} from './workflows/reconcile.ts'
import {
  assess,
  assessAndDeclare,
  groupedAssessmentResults,
  type AssessAndDeclareOutcome,
  type AssessAndDeclareRequest,
  type AssessOutcome,
} from './workflows/declare.ts'
import {
  syncReferenceData,
  type ReferenceStore,
  type SyncOptions,
  type SyncOutcome,
} from './workflows/reference-sync.ts'
import type { WaitOptions } from './workflows/progress.ts'

/** The VET Reporting Service client. */
export class Vetrs extends VetrsOperations {
  /** Standard workflows 1 and 2: batch, upload, validate, read results, submit when clean. */
  submit(records: readonly ResourceRecord[], options: SubmitOptions): Promise<SubmitOutcome> {
    return submitRecords(this, records, options)
  }

  /** Requests validation of the batch, waits until it is Validated and current, and reads every failed result, grouped. */
  validate(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: WaitOptions = {},
  ): Promise<ValidateOutcome> {
    return validate(this, jurisdiction, transactionBatchToken, options)
  }

  /** Every failed result of the batch's latest completed validation, blocking and not, grouped by validationGroupingId. */
  groupedValidationResults(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Promise<GroupedResults<ValidationResult>> {
    return groupedValidationResults(this, jurisdiction, transactionBatchToken, options)
  }

  /** Waits until a submitted batch shows in reconciliation (submit() does this unless told not to). */
  awaitReconciliation(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: WaitOptions = {},
  ): Promise<void> {
    return awaitReconciliation(this, jurisdiction, transactionBatchToken, options)
  }

  /** Standard workflow 3: void records (and their orphans) and confirm they are voided. */
  voidRecords(request: VoidRequest, options: SubmitOptions): Promise<VoidOutcome> {
    return voidRecords(this, request, options)
  }

  /** Compare the SMS's records of a period with what the service holds. */
  reconcile(request: ReconcileRequest, options: ReconcileOptions = {}): Promise<ReconcileOutcome> {
    return reconcile(this, request, options)
  }

  /** Requests the period's assessment (or joins the one running), waits for it, and reads every outcome, grouped. */
  assess(jurisdiction: Jurisdiction, reportingPeriod: number, options: WaitOptions = {}): Promise<AssessOutcome> {
    return assess(this, jurisdiction, reportingPeriod, options)
  }

  /** Every outcome of the period's latest completed assessment, blocking and not, grouped by AssessmentGroupingId. */
  groupedAssessmentResults(
    jurisdiction: Jurisdiction,
    reportingPeriod: number | string,
    options: RequestOptions = {},
  ): Promise<GroupedResults<AssessmentResult>> {
    return groupedAssessmentResults(this, jurisdiction, reportingPeriod, options)
  }

  /** Standard workflow 4: assess the period and declare when nothing blocks. */
  assessAndDeclare(request: AssessAndDeclareRequest, options: WaitOptions = {}): Promise<AssessAndDeclareOutcome> {
    return assessAndDeclare(this, request, options)
  }

  /** Bring a local copy of a reference dataset up to date from its stored watermark. */
  syncReferenceData(dataset: string, store: ReferenceStore, options: SyncOptions = {}): Promise<SyncOutcome> {
    return syncReferenceData(this, dataset, store, options)
  }
}
