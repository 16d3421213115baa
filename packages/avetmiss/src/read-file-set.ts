// A set of NAT files, from wherever they came, to records and problems.
import { natFileIdOf } from './file-names.ts'
import { NAT_LAYOUTS, type NatFileId, REQUIRED_FILE_GROUPS } from './layouts/index.ts'
import { type NatFileReading, type NatParseSink, parseNatText } from './parse-file.ts'
import { DEFAULT_MAX_PROBLEMS, type NatProblem, ProblemCollector } from './problems.ts'
import { emptyRecordSet, type NatRecord, type NatRecordSet } from './records.ts'
import { decodeNatBytes } from './text-decoding.ts'

export interface NatReadOptions {
  /** Problems kept before the reader only counts them (default 1000). */
  maxProblems?: number
  /** Told after each NAT file is read: the files and lines read so far (a caller's progress). */
  onFileRead?(progress: { file: string; filesRead: number; linesRead: number }): void
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
  /**
   * The NAT files read, with the names they were found under and the layout each was read as
   * (`AVETMISS 8.0 NAT00030, 130 characters ...`; `AVETMISS release 7.0 (not read)`).
   */
  files: ({ fileId: NatFileId; file: string } & NatFileReading)[]
  /**
   * What could not be read, so that what refers to it can say so: each line with a problem, with the
   * values that did read (its identifiers, mostly), and the files not read at all (release 7.0).
   */
  unreadable: NatUnreadable
  /** Files that are not one of the NAT files handled here (NAT00005, readme.txt, ...). */
  ignoredFiles: string[]
}

export interface NatUnreadable {
  lines: NatRecordSet
  /** Unreadable lines not kept in `lines` (past MAX_UNREADABLE_LINES of a file), by file identifier. */
  omitted: Partial<Record<NatFileId, number>>
  files: NatFileId[]
}

/**
 * Reads a set of NAT files. Absent files of the optional tables (NAT00090, NAT00100, NAT00130) are
 * empty tables; an absent required file, or a file present twice under different names, is a problem.
 */
export function readNatEntries(entries: Iterable<NatEntry>, options: NatReadOptions = {}): NatReadResult {
  const reading = new NatSetReading(options)
  for (const entry of sortedByName([...entries])) {
    const fileId = reading.wants(entry.name)
    if (fileId) reading.read(fileId, entry.name, entry.bytes)
  }
  return reading.finish()
}

/** By code unit, not locale: the same set reads in the same order (and keeps the same duplicate) anywhere. */
export function sortedByName<T extends { name: string }>(entries: T[]): T[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * The reading of a set, file by file, the files given in name order (sortedByName): `wants` says
 * whether a file is read (a NAT file, not one already read under another name), so that a caller
 * loads the bytes of those only, one file at a time; `read` reads one; `finish` says what the whole
 * set lacks. `take` (parseNatText's) lets a caller keep a file's records its own way instead.
 */
export class NatSetReading {
  readonly #problems: ProblemCollector
  readonly #records = emptyRecordSet()
  readonly #files: NatReadResult['files'] = []
  readonly #ignoredFiles: string[] = []
  readonly #unreadable: NatUnreadable = { lines: emptyRecordSet(), omitted: {}, files: [] }
  readonly #options: NatReadOptions
  #linesRead = 0

  constructor(options: NatReadOptions = {}) {
    this.#options = options
    this.#problems = new ProblemCollector(options.maxProblems ?? DEFAULT_MAX_PROBLEMS)
  }

  /** The file's identifier when it is to be read; otherwise it is listed as ignored, or is a duplicate (a problem). */
  wants(name: string): NatFileId | undefined {
    const fileId = natFileIdOf(name)
    if (!fileId) {
      this.#ignoredFiles.push(name)
      return undefined
    }
    const first = this.#files.find((found) => found.fileId === fileId)
    if (first) {
      this.#problems.add({
        file: name,
        line: 0,
        message: `${fileId} is in the set twice, as ${first.file} and ${name}; only ${first.file} was read`,
        correctiveAction: `Keep one ${fileId} in the folder or zip: the one the SMS exported last.`,
      })
      return undefined
    }
    return fileId
  }

  /** Reads one file (refusing bytes that are no NAT text); `sink.take` may keep its records instead. */
  read<F extends NatFileId>(fileId: F, name: string, bytes: Uint8Array, sink: NatParseSink<F> = {}): void {
    sink.unreadable = this.#unreadable.lines[fileId] as NatRecord<F>[]
    const read = parseNatText(fileId, name, decodeNatBytes(bytes, name), this.#problems, sink)
    this.#files.push({ fileId, file: name, ...sink.reading! })
    if (sink.reading?.release7) this.#unreadable.files.push(fileId)
    if (sink.unreadableOmitted) this.#unreadable.omitted[fileId] = sink.unreadableOmitted
    for (const record of read) (this.#records[fileId] as NatRecord[]).push(record)
    this.#linesRead += sink.linesRead ?? 0
    this.#options.onFileRead?.({ file: name, filesRead: this.#files.length, linesRead: this.#linesRead })
  }

  finish(): NatReadResult {
    const files = this.#files
    const problems = this.#problems
    // Zero-length files are what an SMS writes when its export selected nothing (a wrong period, a
    // wrong RTO): "nothing to report" would hide that. Said once, for the set.
    if (files.length > 0 && files.every((found) => found.empty)) {
      problems.add({
        file: files[0]!.file,
        line: 0,
        message: `Every NAT file of the set is empty (${files.map((found) => found.file).join(', ')}): there is nothing to import`,
        correctiveAction:
          'In the SMS, check the collection period and the training organisation the export was run for, and export the NAT files again.',
      })
    }

    for (const group of REQUIRED_FILE_GROUPS) {
      if (group.some((fileId) => files.some((found) => found.fileId === fileId))) continue
      const title = NAT_LAYOUTS[group[0]!].title
      problems.add({
        file: group[0]!,
        line: 0,
        message: `${group.join(' or ')} (${title}) is missing from the set`,
        correctiveAction: `Export ${group.join(' or ')} from the SMS with the other files (AVETMISS requires it), and import the whole set.`,
      })
    }

    return {
      records: this.#records,
      problems: problems.problems,
      problemCount: problems.count,
      problemsTruncated: problems.truncated,
      files,
      ignoredFiles: this.#ignoredFiles,
      unreadable: this.#unreadable,
    }
  }
}
