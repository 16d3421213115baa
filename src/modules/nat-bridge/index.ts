// The NAT bridge in the service: a zip of AVETMISS NAT files imported into a new transaction batch,
// and the batch's failed validation results told as NAT file, line and field. Depends on
// @vetrs/avetmiss and, through their index files, on batches, resources (the upload's structural
// check), reference-data (the codes) and validation (the failed results). Owns nat_import and nat_import_job (imports run as queued jobs).
export { natBridgeRoutes, ZIP_MEDIA_TYPES } from './nat-bridge.routes.ts'
export {
  importNatSet,
  DEFAULT_NAT_FILES_BYTES,
  LISTED_NAT_PROBLEMS,
  type NatImportOptions,
  type NatImportResult,
} from './nat-bridge.service.ts'
export {
  droppedLinesAcknowledged,
  natImportOf,
  natImportSummaryOf,
  natFileNamesOf,
  natFindings,
  type NatFinding,
} from './nat-import-results.service.ts'
export type { NatPlace, NatSetProblem } from './nat-set.ts'
export {
  awaitNatImport,
  natImportJob,
  natImportStatus,
  requestNatImport,
  type NatImportJobData,
  type NatImportJobOptions,
  type NatImportStatus,
} from './nat-import-jobs.ts'
