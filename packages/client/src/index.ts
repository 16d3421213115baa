// @vetrs/client: a typed client for the VET Reporting Service, with each standard workflow as one call.
// One class, Vetrs; everything else exported here is a type, an error class, or a helper it takes.
export { Vetrs } from './vetrs.ts'
export type {
  Caller,
  ClientOptions,
  Batch,
  BatchSummary,
  CreatedBatch,
  ValidationStatus,
  ValidationResult,
  SubmitResult,
  SubmitBatchOptions,
  SearchQuery,
  ReconciliationItem,
  UidMatch,
  UidMatchItem,
  AssessmentStatus,
  AssessmentResult,
  DeclarationRequest,
  DeclarationSaved,
  DeclarationQuery,
  DeclarationRow,
  ReferenceRecord,
  ReferencePage,
  NatImportResult,
  NatImportStatus,
  NatFinding,
  EventPage,
  EventsOptions,
  VetrsEvent,
  WebhookEndpoint,
  CreatedWebhookEndpoint,
  NewWebhookEndpoint,
  WebhookEndpointChange,
  RotatedWebhookSecret,
  WebhookDelivery,
  HeldState,
  Jurisdiction,
  RecordOf,
  UploadResult,
} from './client.ts'
export type { Resource } from './resource.ts'
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.ts'
export {
  BulkUploadError,
  ConflictReason,
  NetworkError,
  ServiceError,
  TimeoutError,
  UsageError,
  VetrsError,
  WorkflowError,
  type ProblemDetails,
  type RefusedRecord,
} from './errors.ts'
export { DEFAULT_TIMEOUT_MS, type RequestOptions } from './request-options.ts'
export { VERSION, type AppInfo } from './version.ts'
export {
  kindOf,
  kindOfType,
  SEGMENTS,
  type DeliveryLocation,
  type Problem,
  type Program,
  type ProgramEnrolment,
  type ProgramOffering,
  type ResourceRecord,
  type ResourceType,
  type Segment,
  type Student,
  type Subject,
  type SubjectEnrolment,
  type SubjectOffering,
} from './resources.ts'
export { defaultLimits, type Limits } from './limits.ts'
export { defaultRetryPolicy, type RetryPolicy } from './retry.ts'
export type { RetryNotice } from './retry.ts'
export type { Credentials } from './token.ts'
export { allItems, allPages, collect, type Page, type Paged } from './paging.ts'
export type { ProgressEvent, OnProgress, WaitOptions } from './workflows/progress.ts'
/** Runs async work over a list with at most N in flight (what the upload workflows use). */
export { eachBounded } from './workflows/progress.ts'
export type {
  SubmitOptions,
  SubmitOutcome,
  ValidateOutcome,
  ResultGroup,
  GroupedResults,
} from './workflows/submit.ts'
export type { VoidRequest, VoidOutcome, VoidedReason } from './workflows/void.ts'
export {
  BULK_UPLOAD_PATH,
  type BulkUploadOffer,
  type BulkUploadResult,
  type UploadManyOptions,
  type UploadManyOutcome,
} from './workflows/upload-many.ts'
export {
  HELD_RECORDS_PATH,
  type HeldDataset,
  type HeldDatasetOptions,
  type HeldRecord,
  type HeldRecordsOptions,
  type HeldRecordsPage,
} from './workflows/held-records.ts'
export type { ReconcileRequest, ReconcileOptions, ReconcileOutcome, LocalRecord } from './workflows/reconcile.ts'
export type { AssessAndDeclareRequest, AssessAndDeclareOutcome, AssessOutcome } from './workflows/declare.ts'
export {
  FileReferenceStore,
  FULL_LOAD,
  type ReferenceStore,
  type SyncOptions,
  type SyncOutcome,
} from './workflows/reference-sync.ts'
