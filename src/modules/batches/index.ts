// Transaction batches: where an SMS gathers records before validating and submitting them, and the
// records held in each batch. Other modules reach batches and their records only through this file.
export { batchRoutes } from './batches.routes.ts'
export {
  createBatch,
  discardBatch,
  getBatch,
  listBatches,
  latestBatch,
  findBatches,
  type BatchWithCreator,
  requireBatch,
  lockOpenBatch,
  markBatchSubmitted,
  nextBatchToReconcile,
  markBatchReconciled,
  isBatchReconciled,
  batchSubject,
  jurisdictionOfBatch,
  type BatchRef,
} from './batches.service.ts'
export {
  uploadRecord,
  uploadRecords,
  readRecord,
  readRecords,
  listRecords,
  deleteRecord,
  recordsOfBatch,
  createBatchWithRecords,
  type RecordToUpload,
  type RecordChunkRow,
} from './batch-records.service.ts'
export { BATCH_SEARCH_RECORD_LIMIT, type BatchFilter } from './batches.repo.ts'
export { BatchParams, BatchSummary, type BatchDetail } from './batches.schemas.ts'
