// Reconciliation: read-only views of the held dataset by period, by UID, and around a record, and the
// index they read, brought up to date after each submission by a job.
export { reconciliationRoutes } from './reconciliation.routes.ts'
export { periodRange, indexedActivityDate, relatedResources } from './reconciliation.service.ts'
export { relatedStartSegments, type ReconciliationItem } from './reconciliation.schemas.ts'
export {
  reconciliationJob,
  indexPendingSubmissions,
  type ReconcileJob,
  type ReconcileJobData,
  type ReconcileJobOptions,
} from './reconciliation.jobs.ts'
