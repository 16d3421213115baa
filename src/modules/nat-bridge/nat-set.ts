// What the NAT bridge does with a NAT file set, apart from the service: read the zip (bounded), map it
// to the eight resources with the caller's reference data, and tell where in the NAT files a record
// or one of its fields came from. Pure library work on @vetrs/avetmiss, run in a worker thread
// (nat-set.worker.ts) so that reading and mapping a large set never holds up the service's requests.
import {
  codeTranslatorFrom,
  type MappedRecord,
  type NatPlace,
  type NatProblem,
  natPlaceOfProblem,
  natPlacesOf,
  natToResources,
  NatZipTooLargeError,
  type OriginIndex,
  originIndexOf,
  type OtherOrganisation,
  otherOrganisations,
  type ReferenceDatasets,
  readNatZip,
} from './avetmiss.ts'

/** A place in the NAT files, as the API tells it (and as `vetrs nat import --json` prints it). */
export type { NatPlace }

export type NatProblemStage = 'read' | 'map' | 'upload'

/** A problem of the NAT files: a line the reader could not read, a value the mapping could not carry, a record the upload's structural check refused. */
export interface NatSetProblem {
  stage: NatProblemStage
  nat: NatPlace[]
  value?: string
  message: string
  resourceType?: string
  resourceUID?: string
  accessPath?: string
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
  files: { fileId: string; file: string }[]
  ignoredFiles: string[]
  /** The reader's and the mapping's problems, the first maxProblems. */
  problems: NatSetProblem[]
  problemCount: number
  recordCount: number
  recordsByType: Record<string, number>
  /** Training organisation identifiers other than the RTO's (NAT00010, NAT00020, NAT00120, NAT00130): the import refuses the set. */
  otherOrganisations: OtherOrganisation[]
}

/** Why a set could not be opened: not a zip that reads, or more than the bounds allow. */
export interface NatSetRefusal {
  refused: 'unreadable' | 'too-large'
  message: string
}

export interface OpenedNatSet {
  summary: NatSetSummary
  records: MappedRecord[]
  origins: OriginIndex
}

/** A mapped record as it travels to the service's thread: type, UID and the upload body. */
export interface NatSetRecord {
  resourceType: string
  uid: string
  record: unknown
}

/** Reads and maps a NAT zip, or says why it cannot. */
export async function openNatSet(zip: Uint8Array, options: NatSetOptions): Promise<OpenedNatSet | NatSetRefusal> {
  let read: Awaited<ReturnType<typeof readNatZip>>
  try {
    read = await readNatZip(zip, { maxUncompressedBytes: options.maxFilesBytes, maxProblems: options.maxProblems })
  } catch (error) {
    const message = (error as Error).message
    return { refused: error instanceof NatZipTooLargeError ? 'too-large' : 'unreadable', message }
  }
  const mapped = natToResources(read, { rtoCode: options.rtoCode, codes: codeTranslatorFrom(options.datasets) })
  const problems: NatSetProblem[] = []
  for (const [stage, list] of [
    ['read', read.problems],
    ['map', mapped.problems],
  ] as const) {
    for (const problem of list) {
      if (problems.length === options.maxProblems) break
      problems.push(problemOf(stage, problem))
    }
  }
  const recordsByType: Record<string, number> = {}
  for (const { resourceType } of mapped.records) recordsByType[resourceType] = (recordsByType[resourceType] ?? 0) + 1
  return {
    summary: {
      files: read.files.map(({ fileId, file }) => ({ fileId, file })),
      ignoredFiles: read.ignoredFiles,
      problems,
      problemCount: read.problemCount + mapped.problems.length,
      recordCount: mapped.records.length,
      recordsByType,
      otherOrganisations: otherOrganisations(read.records, options.rtoCode),
    },
    records: mapped.records,
    origins: originIndexOf(mapped.records),
  }
}

function problemOf(stage: 'read' | 'map', problem: NatProblem): NatSetProblem {
  return {
    stage,
    nat: [natPlaceOfProblem(problem)],
    ...(problem.value === undefined ? {} : { value: problem.value }),
    message: problem.message,
  }
}

/** What to locate: a record, and the access paths of its fields (none: the record's own line). */
export interface LocateRequest {
  resourceType: string
  uid: string
  paths: readonly string[]
}

/**
 * The NAT places of a record's fields, one per distinct place, in the order of the paths; none for a
 * record these files did not give (a held record a set rule named).
 */
export function placesOf(origins: OriginIndex, request: LocateRequest): NatPlace[] {
  return natPlacesOf(origins, request.resourceType, request.uid, request.paths)
}
