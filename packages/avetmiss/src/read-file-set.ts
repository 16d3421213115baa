// A set of NAT files, from wherever they came, to records and problems.
import { natFileIdOf } from './file-names.ts'
import { NAT_LAYOUTS, type NatFileId, REQUIRED_FILE_GROUPS } from './layouts/index.ts'
import { parseNatText } from './parse-file.ts'
import { DEFAULT_MAX_PROBLEMS, type NatProblem, ProblemCollector } from './problems.ts'
import { emptyRecordSet, type NatRecord, type NatRecordSet } from './records.ts'
import { decodeNatBytes } from './text-decoding.ts'

export interface NatReadOptions {
  /** Problems kept before the reader only counts them (default 1000). */
  maxProblems?: number
}

/** A file of a set: its name (a path inside a zip, say) and its bytes. */
export interface NatEntry {
  name: string
  bytes: Uint8Array
}

export interface NatReadResult {
  /** The records without problems, by file identifier. */
  records: NatRecordSet
  /** The first `maxProblems` problems, in file and line order. */
  problems: NatProblem[]
  /** Every problem found, including those past `maxProblems`. */
  problemCount: number
  /** True when problems were found beyond those kept: `problemCount - problems.length` more. */
  problemsTruncated: boolean
  /** The NAT files read, with the names they were found under. */
  files: { fileId: NatFileId; file: string }[]
  /** Files that are not one of the NAT files handled here (NAT00005, readme.txt, ...). */
  ignoredFiles: string[]
}

/**
 * Reads a set of NAT files. Absent files of the optional tables (NAT00090, NAT00100, NAT00130) are
 * empty tables; an absent required file, or a file present twice under different names, is a problem.
 */
export function readNatEntries(entries: Iterable<NatEntry>, options: NatReadOptions = {}): NatReadResult {
  const problems = new ProblemCollector(options.maxProblems ?? DEFAULT_MAX_PROBLEMS)
  const records = emptyRecordSet()
  const files: NatReadResult['files'] = []
  const ignoredFiles: string[] = []

  // By code unit, not locale: the same set reads in the same order (and keeps the same duplicate) anywhere.
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of sorted) {
    const fileId = natFileIdOf(entry.name)
    if (!fileId) {
      ignoredFiles.push(entry.name)
      continue
    }
    const first = files.find((found) => found.fileId === fileId)
    if (first) {
      problems.add({
        file: entry.name,
        line: 0,
        message: `${fileId} is in the set twice, as ${first.file} and ${entry.name}; only ${first.file} was read`,
      })
      continue
    }
    files.push({ fileId, file: entry.name })
    const read = parseNatText(fileId, entry.name, decodeNatBytes(entry.bytes), problems)
    ;(records[fileId] as NatRecord[]).push(...read)
  }

  for (const group of REQUIRED_FILE_GROUPS) {
    if (group.some((fileId) => files.some((found) => found.fileId === fileId))) continue
    const title = NAT_LAYOUTS[group[0]!].title
    problems.add({ file: group[0]!, line: 0, message: `${group.join(' or ')} (${title}) is missing from the set` })
  }

  return {
    records,
    problems: problems.problems,
    problemCount: problems.count,
    problemsTruncated: problems.truncated,
    files,
    ignoredFiles,
  }
}
