// @vetrs/avetmiss: the AVETMISS 8.0 NAT files of the VET Provider Collection, read and written at
// their published positions, and mapped to and from the service's eight resources. A library of its
// own: it restates the resources' shapes and takes the code translations from reference data given
// to it, so it imports nothing of the service.
export type { FieldLayout, FieldType, FileLayout } from './layout.ts'
export {
  NAT_FILE_IDS,
  NAT_LAYOUTS,
  type NatFieldName,
  type NatFileId,
  type NatLayouts,
  type NatValues,
  REQUIRED_FILE_GROUPS,
} from './layouts/index.ts'
export { EARLIEST_NAT_YEAR, LATEST_NAT_YEAR, NOT_STATED_DATE } from './dates.ts'
export { natFileIdOf, natFileName } from './file-names.ts'
export { DEFAULT_MAX_PROBLEMS, type NatProblem } from './problems.ts'
export { fileSetOf, type NatFileSet, type NatRecord, type NatRecordSet } from './records.ts'
export { MAX_UNREADABLE_LINES_READ, type NatFileReading, type NatTextReadResult, readNatText } from './parse-file.ts'
export { natRecordIdentity } from './identity.ts'
export {
  checkNatSet,
  NAT_CHECKS,
  type NatCheck,
  type NatCheckFinding,
  type NatCheckLevel,
  type NatCheckOptions,
  NatSetChecker,
} from './checks/nat-checks.ts'
export { MAX_STATE_EXTENSION } from './read-layouts.ts'
export {
  type NatEntry,
  type NatReadOptions,
  type NatReadResult,
  type NatUnreadable,
  readNatEntries,
} from './read-file-set.ts'
export { indexNatFolder, readNatFolder } from './read-folder.ts'
export { indexNatEntries, type NatEntryLoader, type NatIndexedSet } from './read-indexed.ts'
export {
  indexNatZip,
  inspectNatZip,
  NatZipEntryNameError,
  type NatZipDirectory,
  NatZipTooLargeError,
  type NatZipReadOptions,
  readNatZip,
} from './read-zip.ts'
export { NatUndecodableError } from './text-decoding.ts'
export { formatNatFile, formatNatRecord, NAT_LINE_END, NatWriteError } from './format-file.ts'
export { type NatFiles, natFileEntries, natZipBytes, writeNatFolder, writeNatZip } from './write-file-set.ts'
export { natUid } from './nat-uid.ts'
export {
  ORGANISATION_FILES,
  OrganisationTally,
  type OtherOrganisation,
  otherOrganisationMessage,
  otherOrganisations,
} from './organisation-check.ts'
export {
  type CodeTranslator,
  codeTranslatorFrom,
  type ReferenceDataRecord,
  type ReferenceDatasets,
} from './mapping/code-translator.ts'
export type { MappedRecord, MappedRecordOf } from './mapping/mapped-record.ts'
export { type ActivityKey, type NaturalKeys, naturalKeysOf } from './mapping/natural-keys.ts'
export { natToResources, type NatToResourcesOptions, type NatToResourcesResult } from './mapping/nat-to-resources.ts'
export {
  type CompressedRecord,
  CompressedRecords,
  type RecordIndexes,
  type RecordToCompress,
  uidsIn,
} from './mapping/compressed-records.ts'
export {
  CLIENT_FILES,
  DEFAULT_CHUNK_LINES,
  mapClientChunks,
  type NatResourceChunk,
  natToResourceChunks,
  type NatToResourceChunksOptions,
} from './mapping/nat-to-resource-chunks.ts'
export {
  carryForwardHeld,
  type HeldEnrolment,
  HISTORY_TYPES,
  type HistoryType,
  mergeHeldEnrolment,
  mergeLifecycles,
} from './mapping/held-history.ts'
export {
  compactOrigin,
  formatNatLocation,
  locate,
  type NatFieldSource,
  type NatLocation,
  type NatSourceLine,
  type OriginIndex,
  originIndexOf,
  type RecordOrigin,
} from './mapping/origin.ts'
export { type NatPlace, natPlaceOf, natPlaceOfProblem, natPlacesOf } from './mapping/places.ts'
export { inNatTerms, type NatTerms, natTermsOf, plainFieldMessage } from './mapping/terms.ts'
export * from './mapping/resource-records.ts'
export { resourcesToNat, type ResourcesToNatOptions, type ResourcesToNatResult } from './mapping/resources-to-nat.ts'
export type { ResourceProblem } from './mapping/to-nat/context.ts'
export {
  type GeneratedNatFileSet,
  type GenerateNatFileSetOptions,
  generateNatFileSet,
} from './generate/generate-file-set.ts'
export {
  NAT_CHECK_FAULT_KINDS,
  NAT_FAULT_KINDS,
  type NatFaultKind,
  type NatFaultRequest,
  type PlantedNatFault,
} from './generate/faults.ts'
