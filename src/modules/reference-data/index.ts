// Reference and classification data: versioned datasets, their loader, watermark synchronisation,
// and the in-memory lookup business rules check codes against.
export { referenceDataRoutes } from './reference-data.routes.ts'
export {
  seedReferenceData,
  readSeedReferenceData,
  currentCodes,
  type CurrentCode,
  loadReleaseFile,
  loadRelease,
  type LoadSummary,
  previewRelease,
  publishRelease,
  ReleaseBasisChanged,
  RELEASE_FILE_MAX_BYTES,
  type ReleaseDiff,
  type ReleaseChange,
  datasetSummaries,
  currentRecordsOf,
  type DatasetSummary,
} from './reference-data.service.ts'
export type { CurrentRecord } from './reference-data.repo.ts'
export { createReferenceLookup, type ReferenceLookup } from './reference-lookup.ts'
export { ReleaseFileError } from './release-file.ts'
export { datasets } from './datasets.ts'
