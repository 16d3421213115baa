// Transaction batches: where an SMS gathers records before validating and submitting them, and the
// records held in each batch. Other modules reach batches and their records only through this file.
export { batchRoutes, API_PREFIX } from './batches.routes.ts'
export {
  BATCH_RESOURCE_TYPES,
  requireBatch,
  lockOpenBatch,
  assertOpen,
  toSummary,
  type BatchRef,
} from './batches.service.ts'
export { BatchParams, BatchSummary } from './batches.schemas.ts'
export { touchBatch, markSubmitted } from './batches.repo.ts'
export * as batchRecords from './batch-records.repo.ts'
