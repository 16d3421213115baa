// A record as read from a NAT file: its values, and where it came from so that a later problem
// (a rule, a mapping) can point back at the file and line.
import { NAT_FILE_IDS, type NatFileId, type NatValues } from './layouts/index.ts'

export interface NatRecord<F extends NatFileId = NatFileId> {
  fileId: F
  /** The file's name as found in the folder or zip. */
  file: string
  /** 1-based line of the file. */
  line: number
  values: NatValues<F>
}

/** Records by file identifier; a file that was absent or empty has none. */
export type NatRecordSet = { [F in NatFileId]: NatRecord<F>[] }

/** Records to write, by file identifier: only the files given are written. */
export type NatFileSet = { [F in NatFileId]?: readonly NatValues<F>[] }

export function emptyRecordSet(): NatRecordSet {
  return Object.fromEntries(NAT_FILE_IDS.map((fileId) => [fileId, []])) as unknown as NatRecordSet
}

/** The values of every record read, ready to be written again. */
export function fileSetOf(records: NatRecordSet): NatFileSet {
  return Object.fromEntries(
    NAT_FILE_IDS.map((fileId) => [fileId, records[fileId].map((record) => record.values)]),
  ) as NatFileSet
}
