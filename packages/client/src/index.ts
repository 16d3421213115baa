// @vetrs/client: a typed client for the VET Reporting Service, with each standard workflow as one call.
import { VetrsClient as BaseClient, type ClientOptions, type Jurisdiction } from './client.ts'
import type { ResourceRecord } from './resources.ts'
import { submitRecords, type SubmitOptions, type SubmitOutcome } from './workflows/submit.ts'
import { voidRecords, type VoidOutcome, type VoidRequest } from './workflows/void.ts'
import { reconcile, type ReconcileOutcome, type ReconcileRequest } from './workflows/reconcile.ts'
import { assessAndDeclare, type AssessAndDeclareOutcome, type AssessAndDeclareRequest } from './workflows/declare.ts'
import { syncReferenceData, type ReferenceStore, type SyncOutcome } from './workflows/reference-sync.ts'
import type { OnProgress } from './workflows/progress.ts'

/** The client with the standard workflows as methods. */
export class Vetrs extends BaseClient {
  /** Standard workflows 1 and 2: batch, upload, validate, read results, submit when clean. */
  submit(records: readonly ResourceRecord[], options: SubmitOptions): Promise<SubmitOutcome> {
    return submitRecords(this, records, options)
  }

  /** Standard workflow 3: void records (and their orphans) and confirm they are voided. */
  voidRecords(request: VoidRequest, options: SubmitOptions): Promise<VoidOutcome> {
    return voidRecords(this, request, options)
  }

  /** Compare the SMS's records of a period with what the service holds. */
  reconcile(request: ReconcileRequest, options: { onProgress?: OnProgress } = {}): Promise<ReconcileOutcome> {
    return reconcile(this, request, options)
  }

  /** Standard workflow 4: assess the period and declare when nothing blocks. */
  assessAndDeclare(request: AssessAndDeclareRequest): Promise<AssessAndDeclareOutcome> {
    return assessAndDeclare(this, request)
  }

  /** Bring a local copy of a reference dataset up to date from its stored watermark. */
  syncReferenceData(
    dataset: string,
    store: ReferenceStore,
    options: { onProgress?: OnProgress } = {},
  ): Promise<SyncOutcome> {
    return syncReferenceData(this, dataset, store, options)
  }
}

export type { ClientOptions, Jurisdiction }
export * from './client.ts'
export * from './errors.ts'
export * from './resources.ts'
export { defaultLimits, type Limits } from './limits.ts'
export { defaultRetryPolicy, type RetryPolicy } from './retry.ts'
export type { RetryNotice } from './http.ts'
export { allItems, allPages, collect } from './paging.ts'
export type { ProgressEvent, OnProgress } from './workflows/progress.ts'
export type { SubmitOptions, SubmitOutcome, ResultGroup } from './workflows/submit.ts'
export type { VoidRequest, VoidOutcome, VoidedReason } from './workflows/void.ts'
export type { ReconcileRequest, ReconcileOutcome, LocalRecord } from './workflows/reconcile.ts'
export type { AssessAndDeclareRequest, AssessAndDeclareOutcome } from './workflows/declare.ts'
export { FileReferenceStore, FULL_LOAD, type ReferenceStore, type SyncOutcome } from './workflows/reference-sync.ts'
