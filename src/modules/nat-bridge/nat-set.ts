// What the NAT bridge does with a NAT file set, apart from the service: read the zip (bounded), map it
// to the eight resources with the caller's reference data, and tell where in the NAT files a record
// or one of its fields came from. Pure library work on @vetrs/avetmiss, run in a worker thread
// (nat-set.worker.ts) so that reading and mapping a large set never holds up the service's requests.
import {
  codeTranslatorFrom,
  formatNatLocation,
  locate,
  type MappedRecord,
  NAT_LAYOUTS,
  type NatLocation,
  type NatProblem,
  natFileIdOf,
  natToResources,
  NatZipTooLargeError,
  type OriginIndex,
  originIndexOf,
  type ReferenceDatasets,
  readNatZip,
} from './avetmiss.ts'

/** A place in the NAT files, as the API tells it (and as `vetrs nat import --json` prints it). */
export interface NatPlace {
  /** The file's name as found in the zip. */
  file: string
  /** NAT00120 ...; absent for a file name the reader did not recognise. */
  fileId?: string
  /** 1-based; 0 for the file as a whole (missing, or in the set twice). */
  line: number
  /** The NAT field's name in camelCase, as @vetrs/avetmiss names it. */
  field?: string
  /** Its published name (`Activity start date`). */
  fieldLabel?: string
  /** `NAT00120 line 17 field Activity start date`. */
  text: string
}

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
    },
    records: mapped.records,
    origins: originIndexOf(mapped.records),
  }
}

function problemOf(stage: 'read' | 'map', problem: NatProblem): NatSetProblem {
  // A missing file is reported under its identifier (NAT00010), which names a file too.
  const fileId = natFileIdOf(problem.file)
  const fields: readonly { name: string; label: string }[] = fileId ? NAT_LAYOUTS[fileId].fields : []
  const fieldLabel = fields.find((candidate) => candidate.name === problem.field)?.label
  const id = fileId ?? problem.file
  const text =
    problem.line === 0
      ? `${id} (the whole file)`
      : `${id} line ${problem.line}${problem.field ? ` field ${fieldLabel ?? problem.field}` : ''}`
  return {
    stage,
    nat: [
      {
        file: problem.file,
        ...(fileId ? { fileId } : {}),
        line: problem.line,
        ...(problem.field ? { field: problem.field } : {}),
        ...(fieldLabel ? { fieldLabel } : {}),
        text,
      },
    ],
    ...(problem.value === undefined ? {} : { value: problem.value }),
    message: problem.message,
  }
}

function placeOf(location: NatLocation): NatPlace {
  return {
    file: location.file,
    fileId: location.fileId,
    line: location.line,
    ...(location.field ? { field: location.field } : {}),
    ...(location.label ? { fieldLabel: location.label } : {}),
    text: formatNatLocation(location),
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
  const places = new Map<string, NatPlace>()
  for (const path of request.paths.length > 0 ? request.paths : [undefined]) {
    const location = locate(origins, request.resourceType, request.uid, path)
    if (location) places.set(formatNatLocation(location), placeOf(location))
  }
  return [...places.values()]
}
