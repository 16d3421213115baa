// @vetrs/avetmiss: the AVETMISS 8.0 NAT files of the VET Provider Collection, read and written at
// their published positions. A library of its own: it knows nothing of the service.
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
