// What the NAT bridge does with a NAT file set, apart from the service: read the zip (bounded), map it
// to the eight resources with the caller's reference data, and tell where in the NAT files a record
// or one of its fields came from. Pure library work on @vetrs/avetmiss, run in a worker thread
// (nat-set.worker.ts) so that reading and mapping a large set never holds up the service's requests.
import {
  CompressedRecords,
  codeTranslatorFrom,
  DEFAULT_CHUNK_LINES,
  indexNatZip,
  inNatTerms,
  mapClientChunks,
  type NatIndexedSet,
  type NatPlace,
  type NatProblem,
  NatSetChecker,
  natPlaceOfProblem,
  natPlacesOf,
  NatUndecodableError,
  NatZipEntryNameError,
  NatZipTooLargeError,
  type OtherOrganisation,
  type ReferenceDatasets,
  uidsIn,
} from './avetmiss.ts'
import { valueAt } from './value-at.ts'

/** A place in the NAT files, as the API tells it (and as `vetrs nat import --json` prints it). */
export type { NatPlace }

export type NatProblemStage = 'read' | 'map' | 'upload'

/** A problem of the NAT files: a line the reader could not read, a value the mapping could not carry, a record the upload's structural check refused. */
export interface NatSetProblem {
  stage: NatProblemStage
  nat: NatPlace[]
  value?: string
  /** The record in the files' identifiers (`client C0001, subject BSBWHS411, ...`). */
  record?: string
  message: string
  /** What to change in the SMS that wrote the files. */
  correctiveAction?: string
  resourceType?: string
  resourceUID?: string
  accessPath?: string
}

/** A NAT check's finding: a contradiction across lines that NCVER's validation software reports; the records are stored. */
export interface NatSetCheck {
  check: string
  level: 'Error' | 'Warning'
  nat: NatPlace[]
  value?: string
  record?: string
  message: string
  correctiveAction?: string
}

export interface NatSetOptions {
  /** The RTO's code: part of every record's UID. */
  rtoCode: string
  /** Reference data by dataset name, current versions: the code translator's. */
  datasets: ReferenceDatasets
  /** Most bytes the zip's NAT files may hold uncompressed. */
  maxFilesBytes: number
  /** NAT problems listed (all are counted). */
  maxProblems: number
}

export interface NatSetSummary {
  /** The NAT files read, and the layout each was read as. */
  files: { fileId: string; file: string; layout: string }[]
  ignoredFiles: string[]
  /** The reader's and the mapping's problems, the first maxProblems. */
  problems: NatSetProblem[]
  problemCount: number
  /** The NAT checks' findings, the first maxProblems, and how many there were. */
  checks: NatSetCheck[]
  checkCount: number
  recordCount: number
  recordsByType: Record<string, number>
  /** Training organisation identifiers other than the RTO's (NAT00010, NAT00020, NAT00120, NAT00130): the import refuses the set. */
  otherOrganisations: OtherOrganisation[]
}

/**
 * Why a set could not be opened: not a zip that reads, content that is no text a NAT file is written
 * in (its file and line in the message) or an unsafe entry name, or more than the bounds allow.
 */
export interface NatSetRefusal {
  refused: 'unreadable' | 'undecodable' | 'too-large'
  message: string
}

/**
 * A set read and mapped: the mapped records compressed chunk by chunk (their lines let go as each
 * chunk is mapped), and what the findings need of them (compact origins and the records in the files'
 * identifiers), so that the worker holds a bounded share of the set's lines and records at once.
 */
export interface OpenedNatSet {
  summary: NatSetSummary
  /** With each record's compact origin and identity in the files' terms. */
  records: CompressedRecords
}

/** How far the reader is: NAT files and lines read. */
export interface NatReadProgress {
  filesRead: number
  linesRead: number
}

/** A mapped record as it travels to the service's thread: type, UID and the upload body. */
export interface NatSetRecord {
  resourceType: string
  uid: string
  record: unknown
}

/** What the caller of openNatSet is told, and when it may act, while the set is read and mapped. */
export interface NatSetHooks {
  /** After each NAT file is read. */
  onFileRead?: (progress: NatReadProgress) => void
  /** After each chunk of clients is mapped and its records compressed: the chunk's garbage is then garbage. */
  betweenChunks?: () => void
}

/**
 * Reads and maps a NAT zip, or says why it cannot. One NAT file is inflated and read at a time, the
 * client files' lines kept only as positions (indexNatZip), then read again a chunk of whole clients at
 * a time, each chunk checked (the NAT checks) and mapped, then let go: the worker holds a chunk's lines,
 * not the set's, as `vetrs nat import` does (issue 31 item 9). Problems, checks and records are what a
 * whole read gives, in the same order.
 */
export async function openNatSet(
  zip: Uint8Array,
  options: NatSetOptions,
  hooks: NatSetHooks = {},
): Promise<OpenedNatSet | NatSetRefusal> {
  const { onFileRead, betweenChunks } = hooks
  let read: NatIndexedSet
  try {
    read = await indexNatZip(zip, {
      maxUncompressedBytes: options.maxFilesBytes,
      maxProblems: options.maxProblems,
      ...(onFileRead ? { onFileRead: ({ filesRead, linesRead }) => onFileRead({ filesRead, linesRead }) } : {}),
    })
  } catch (error) {
    const message = (error as Error).message
    if (error instanceof NatZipTooLargeError) return { refused: 'too-large', message }
    // Text no NAT file is written in, or an entry name no file may have: said as it is, file and line.
    if (error instanceof NatUndecodableError || error instanceof NatZipEntryNameError)
      return { refused: 'undecodable', message }
    return { refused: 'unreadable', message }
  }
  const others = read.organisations.others(options.rtoCode)
  const checker = new NatSetChecker(read)
  const records = new CompressedRecords()
  const recordsByType: Record<string, number> = {}
  const chunks = mapClientChunks(checker.checking(read.clientChunks(DEFAULT_CHUNK_LINES)), read, {
    rtoCode: options.rtoCode,
    codes: codeTranslatorFrom(options.datasets),
  })
  let mappingProblems: NatProblem[]
  for (;;) {
    const next = chunks.next()
    if (next.done) {
      mappingProblems = next.value
      break
    }
    const mapped = next.value.records
    for (const record of mapped) recordsByType[record.resourceType] = (recordsByType[record.resourceType] ?? 0) + 1
    records.add(mapped)
    betweenChunks?.()
  }
  // Known once every chunk has been checked: with the small files' orphans, in file and line order.
  const checked = checker.findings()
  // The reader keeps maxProblems, and past them the few it always keeps (a file it stopped reading);
  // the mapping's fill what room is left.
  const problems: NatSetProblem[] = read.problems.map((problem) => problemOf('read', problem))
  for (const problem of mappingProblems) {
    if (problems.length >= options.maxProblems) break
    problems.push(problemOf('map', problem))
  }
  const checks: NatSetCheck[] = checked.slice(0, options.maxProblems).map((finding) => ({
    check: finding.check,
    level: finding.level,
    nat: [natPlaceOfProblem(finding)],
    ...(finding.value === undefined ? {} : { value: finding.value }),
    ...(finding.record === undefined ? {} : { record: finding.record }),
    message: finding.message,
    ...(finding.correctiveAction === undefined ? {} : { correctiveAction: finding.correctiveAction }),
  }))
  return {
    summary: {
      files: read.files.map(({ fileId, file, layout }) => ({ fileId, file, layout })),
      ignoredFiles: read.ignoredFiles,
      problems,
      problemCount: read.problemCount + mappingProblems.length,
      checks,
      checkCount: checked.length,
      recordCount: records.count,
      recordsByType,
      otherOrganisations: others,
    },
    records,
  }
}

function problemOf(stage: 'read' | 'map', problem: NatProblem): NatSetProblem {
  return {
    stage,
    nat: [natPlaceOfProblem(problem)],
    ...(problem.value === undefined ? {} : { value: problem.value }),
    ...(problem.record === undefined ? {} : { record: problem.record }),
    message: problem.message,
    ...(problem.correctiveAction === undefined ? {} : { correctiveAction: problem.correctiveAction }),
  }
}

/** What to locate: a record, and the access paths of its fields (none: the record's own line). */
export interface LocateRequest {
  resourceType: string
  uid: string
  paths: readonly string[]
}

/**
 * The NAT places of each request's record fields, one per distinct place, in the order of the paths;
 * none for a record these files did not give (a held record a set rule named).
 */
export function placesOf(set: Pick<OpenedNatSet, 'records'>, requests: readonly LocateRequest[]): NatPlace[][] {
  const { origins } = set.records.indexesOf(requests.map((request) => request.uid))
  return requests.map((request) => natPlacesOf(origins, request.resourceType, request.uid, request.paths))
}

/** A text about a record (a validation result's message or corrective action), to be told in the files' terms. */
export interface DescribeRequest {
  resourceType: string
  uid: string
  texts: readonly string[]
  /** The access path whose value to give (a validation result's first). */
  path?: string
}

/** The record in the files' identifiers, and each text with its UIDs, JSON paths and API field names told as the files name them. */
export interface NatDescription {
  record?: string
  texts: string[]
  /** The value at `path` in the record as mapped, when it is text, a number or a flag. */
  value?: string
}

/** Each request's record in the files' identifiers, its texts told in the files' terms, and its value. */
export function describe(set: Pick<OpenedNatSet, 'records'>, requests: readonly DescribeRequest[]): NatDescription[] {
  // The records asked about and those their texts name, each compressed chunk inflated once for all.
  const { origins, terms, bodies } = set.records.indexesOf(
    requests.flatMap((request) => [request.uid, ...request.texts.flatMap(uidsIn)]),
  )
  return requests.map((request) => {
    const about = { resourceType: request.resourceType, uid: request.uid }
    const record = terms.get(request.uid.toLowerCase())
    const found = request.path === undefined ? undefined : valueAt(bodies.get(request.uid.toLowerCase()), request.path)
    const value =
      typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean' ? String(found) : undefined
    return {
      ...(record === undefined ? {} : { record }),
      texts: request.texts.map((text) => inNatTerms(text, terms, origins, about)),
      ...(value === undefined ? {} : { value }),
    }
  })
}
