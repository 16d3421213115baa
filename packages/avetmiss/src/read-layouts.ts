// Which layout a NAT file was written to. SMSs and state collections write the AVETMISS 8.0 files in
// a few published shapes: NAT00030 at 114 characters (national) or 130 (the program's classifications
// at 115-130, as release 7.0 and several state collections have it), NAT00080 and NAT00120 with state
// extension columns past the national record, and files of release 7.0, whose columns differ. The
// reader picks one layout per file from its lines, reads every line with it, and says which it was.
import type { FieldLayout } from './layout.ts'
import { layoutOf, NAT_LAYOUTS, type NatFileId } from './layouts/index.ts'

export interface NatReadLayout {
  readonly fileId: NatFileId
  /** How the file was read, in words: `AVETMISS 8.0 NAT00030, 130 characters (with classifications)`. */
  readonly name: string
  /** The longest line the layout takes (state extension columns included). */
  readonly recordLength: number
  /** The fields read; columns past the last of them (state extension columns) are not read. */
  readonly fields: readonly FieldLayout[]
  /** State extension columns, read and not carried: `{ from: 159, to: 190 }`. */
  readonly extension?: { readonly from: number; readonly to: number }
}

/** A file of release 7.0, which is named as such once and not read line by line. */
export interface NatRelease7 {
  readonly fileId: NatFileId
  /** What shows it is release 7.0, in words. */
  readonly evidence: string
}

/** The files whose state collections publish extension columns after the national record. */
const STATE_EXTENSION_FILES: ReadonlySet<NatFileId> = new Set(['NAT00060', 'NAT00080', 'NAT00085', 'NAT00120'])

/** The widest state extension accepted: past it a line is too long for any published layout. */
export const MAX_STATE_EXTENSION = 200

const national = (fileId: NatFileId): NatReadLayout => {
  const layout = layoutOf(fileId)
  return {
    fileId,
    name: `AVETMISS 8.0 ${fileId}, ${layout.recordLength} characters (national)`,
    recordLength: layout.recordLength,
    fields: layout.fields,
  }
}

/** NAT00030 at 130 characters: NAT00030A's fields under NAT00030's name. */
const NAT00030_130: NatReadLayout = {
  fileId: 'NAT00030',
  name: 'AVETMISS NAT00030, 130 characters (program recognition, level and field of education, ANZSCO and VET flag at 115-130)',
  recordLength: NAT_LAYOUTS.NAT00030A.recordLength,
  fields: NAT_LAYOUTS.NAT00030A.fields,
}

const columns = (line: string, start: number, length: number) => line.slice(start - 1, start - 1 + length)

// Release 7.0 to 8.0 moved columns: NAT00080 lost the year highest school level completed (7.0: year at
// 73-76, sex at 77, date of birth at 78-85; 8.0: gender at 73, date of birth at 74-81), NAT00120's
// delivery mode identifier went from two digits (10 classroom, 20 electronic ...) to three Y/N letters
// at 69-71, and NAT00060 lost the subject flag (C or M) that 7.0 put first.
const RELEASE_7_SIGNS: Partial<
  Record<NatFileId, { test: (line: string, contentLength: number) => boolean; evidence: string }>
> = {
  NAT00080: {
    test: (line) =>
      /^(\d{4}|@{4})[MFX@](\d{8}|@{8})$/.test(columns(line, 73, 13)) &&
      !/^[MFX@](\d{8}|@{8})/.test(columns(line, 73, 9)),
    evidence:
      'its lines have the year highest school level completed at columns 73-76 and the sex at 77 (release 8.0 has the gender at 73 and the date of birth at 74-81)',
  },
  NAT00120: {
    test: (line) => /^\d\d/.test(columns(line, 69, 2)) && !/^[YN@]{3}$/.test(columns(line, 69, 3)),
    evidence:
      'its delivery mode identifier at columns 69-70 is two digits (release 8.0 has three letters Y or N at 69-71: internal, external, workplace)',
  },
  NAT00060: {
    test: (line, length) => length === 124 && /^[CM]$/.test(line[0] ?? '') && /^[YN]$/.test(line[119] ?? ''),
    evidence:
      'its lines are 124 characters with a subject flag (C or M) in column 1 (release 8.0 has no subject flag: the subject identifier starts at 1 and the record is 123)',
  },
}

/** The length of a line without its trailing spaces, without making the shorter string. */
export function contentLength(line: string): number {
  let end = line.length
  while (end > 0 && line.charCodeAt(end - 1) === 0x20) end -= 1
  return end
}

/**
 * The layout to read a file with, from its lines (as split, trailing spaces kept), or the signs that
 * it is a release 7.0 file. One pass that counts, keeping nothing per line: a file of 200,000 lines
 * costs no more memory to judge than one of ten.
 */
export function readLayoutOf(fileId: NatFileId, lines: Iterable<string>): NatReadLayout | NatRelease7 {
  const base = national(fileId)
  const sign = RELEASE_7_SIGNS[fileId]
  const extensible = STATE_EXTENSION_FILES.has(fileId)
  const past = (length: number) => length > base.recordLength && length <= base.recordLength + MAX_STATE_EXTENSION
  let filled = 0
  let release7 = 0
  let longer = 0
  let padded = 0
  let valued = 0
  let widest = base.recordLength
  for (const line of lines) {
    const length = contentLength(line)
    if (length === 0) continue
    filled += 1
    if (sign?.test(line, length)) release7 += 1
    if (length > base.recordLength) longer += 1
    if (extensible) {
      // A state variant carries its extension on every line: padded to its width, or with values past
      // the national record. A stray long line in a national file stays a line too long.
      if (past(line.length)) {
        padded += 1
        if (line.length > widest) widest = line.length
      }
      if (past(length)) {
        valued += 1
        if (length > widest) widest = length
      }
    }
  }
  const most = (count: number) => count * 2 > filled
  if (sign && most(release7)) return { fileId, evidence: sign.evidence }
  if (fileId === 'NAT00030' && most(longer)) return NAT00030_130
  if (!extensible || !(most(padded) || most(valued))) return base
  return {
    ...base,
    name: `AVETMISS 8.0 ${fileId}, ${base.recordLength} characters, with state extension columns ${base.recordLength + 1}-${widest} (read, not carried)`,
    recordLength: widest,
    extension: { from: base.recordLength + 1, to: widest },
  }
}

export const isRelease7 = (layout: NatReadLayout | NatRelease7): layout is NatRelease7 => 'evidence' in layout
