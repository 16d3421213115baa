// A NAT file set mapped to the service's resources in bounded chunks, so that an importer holds one
// chunk's lines and mapped records at a time instead of the whole set's twice over (issue 31 item 9;
// docs/decisions.md, "NAT imports: bounded, fair jobs with progress").
//
// Every line of NAT00080, NAT00085, NAT00090, NAT00100, NAT00120 and NAT00130 belongs to one client
// (its client identifier), and everything the mapping looks up across those files is the same
// client's: the student from NAT00080 and NAT00085, its disabilities and prior education, its
// activities, the program enrolments they make up and their completions. So the set is cut by client:
// each chunk is the small files (NAT00010, NAT00020, NAT00030, NAT00030A, NAT00060, kept whole: they are
// what the activities refer to) and the client files' lines of a run of clients, mapped by
// natToResources as a set of its own. What a chunk maps is what the whole set maps for those clients;
// the records every chunk maps again (locations, programs, subjects, and the offerings that activities
// of several chunks name) are given once, by the first chunk that maps them, and so are the problems.
import type { NatProblem } from '../problems.ts'
import type { NatUnreadable } from '../read-file-set.ts'
import { emptyRecordSet, type NatRecord, type NatRecordSet } from '../records.ts'
import type { MappedRecord } from './mapped-record.ts'
import { inFileOrder, natToResources, type NatToResourcesOptions } from './nat-to-resources.ts'

/** The files whose lines each belong to one client, by its client identifier. */
export const CLIENT_FILES = ['NAT00080', 'NAT00085', 'NAT00090', 'NAT00100', 'NAT00120', 'NAT00130'] as const

/**
 * Client-file lines per chunk, at least (a chunk ends at the first client past it; one client's lines
 * are never split). About 1,000 records of the upload's requests per 1,000 lines: 2,500 lines are two
 * or three bulk requests, and about 2.5 MB of lines and mapped records held at once, whatever the set's
 * size. Measured at 100,000 activities through the CLI on a quiet machine (bench/results.md, eighth
 * session): the CLI's peak RSS 283 to 299 MB at 2,500 lines, 299 to 303 at 5,000, 372 to 411 at 10,000,
 * for about the same seconds.
 */
export const DEFAULT_CHUNK_LINES = 2_500

export interface NatToResourceChunksOptions extends NatToResourcesOptions {
  /** Client-file lines per chunk, at least (default DEFAULT_CHUNK_LINES). */
  chunkLines?: number
}

export interface NatResourceChunk {
  /** 0-based. */
  index: number
  /** The client-file lines mapped in this chunk. */
  lines: number
  /** In upload order, as natToResources gives them; none given by an earlier chunk. */
  records: MappedRecord[]
}

/** Types that every chunk maps again, or that activities of several chunks name: given once. */
const SHARED_TYPES: ReadonlySet<string> = new Set([
  'DeliveryLocation',
  'Program',
  'Subject',
  'ProgramOffering',
  'SubjectOffering',
])

/**
 * Maps the set chunk by chunk (a generator: the next chunk is mapped when asked for). It takes the
 * client files' lines out of `set.records` (those arrays are left empty, so a chunk's lines are freed
 * once the caller lets its records go); read what needs the whole set (checkNatSet,
 * otherOrganisations) before. Returns, when done, the problems of the mapping in file and line order,
 * each once: what natToResources would have found for the whole set.
 */
export function* natToResourceChunks(
  set: { records: NatRecordSet; unreadable?: NatUnreadable },
  options: NatToResourceChunksOptions,
): Generator<NatResourceChunk, NatProblem[], void> {
  const chunkLines = Math.max(1, options.chunkLines ?? DEFAULT_CHUNK_LINES)
  const chunks = partitionByClient(set.records, chunkLines)
  function* handed(): Generator<NatRecordSet, void, void> {
    for (let index = 0; index < chunks.length; index++) {
      const chunk = chunks[index]!
      chunks[index] = undefined as unknown as NatRecordSet // its lines go with the chunk's records
      yield chunk
    }
  }
  return yield* mapClientChunks(handed(), set, options)
}

/**
 * Maps client chunks as natToResourceChunks does, the chunks given: the client files' records of runs
 * of whole clients, as partitionByClient cuts them (or ClientLineIndex, reading them again), each with
 * its small files left empty: `set.records`' small files are given to each.
 */
export function* mapClientChunks(
  clientChunks: Iterable<NatRecordSet>,
  set: { records: NatRecordSet; unreadable?: NatUnreadable },
  options: NatToResourcesOptions,
): Generator<NatResourceChunk, NatProblem[], void> {
  const given = new Set<string>()
  const problems: NatProblem[] = []
  const seenProblems = new Set<string>()
  let index = 0
  for (const chunk of clientChunks) {
    const lines = CLIENT_FILES.reduce((sum, fileId) => sum + chunk[fileId].length, 0)
    for (const fileId of SMALL_FILES) (chunk as Record<string, unknown>)[fileId] = set.records[fileId]
    const mapped = natToResources(
      { records: chunk, ...(set.unreadable ? { unreadable: set.unreadable } : {}) },
      options,
    )
    for (const problem of mapped.problems) {
      const key = `${problem.file}\u0000${problem.line}\u0000${problem.field ?? ''}\u0000${problem.message}`
      if (seenProblems.has(key)) continue
      seenProblems.add(key)
      problems.push(problem)
    }
    const records = mapped.records.filter((record) => {
      if (!SHARED_TYPES.has(record.resourceType)) return true
      const key = `${record.resourceType} ${record.uid}`
      if (given.has(key)) return false
      given.add(key)
      return true
    })
    yield { index: index++, lines, records }
  }
  return inFileOrder(problems)
}

const SMALL_FILES = ['NAT00010', 'NAT00020', 'NAT00030', 'NAT00030A', 'NAT00060'] as const

/**
 * The client files' lines cut into runs of whole clients of at least `chunkLines` lines, clients in
 * the order they first appear (NAT00080 first, so a chunk holds students with their activity), lines
 * in file order within each. An empty set is one chunk, so that the small files are still mapped.
 */
function partitionByClient(records: NatRecordSet, chunkLines: number): NatRecordSet[] {
  const byClient = new Map<string, NatRecord[]>()
  for (const fileId of CLIENT_FILES) {
    for (const line of records[fileId] as NatRecord[]) {
      const client = (line.values as { clientIdentifier?: string }).clientIdentifier ?? ''
      const lines = byClient.get(client)
      if (lines) lines.push(line)
      else byClient.set(client, [line])
    }
    ;(records as Record<string, unknown>)[fileId] = []
  }
  const chunks: NatRecordSet[] = []
  let current = emptyRecordSet()
  let size = 0
  for (const [client, lines] of byClient) {
    for (const line of lines) (current[line.fileId] as NatRecord[]).push(line)
    size += lines.length
    byClient.delete(client)
    if (size >= chunkLines) {
      chunks.push(current)
      current = emptyRecordSet()
      size = 0
    }
  }
  if (size > 0 || chunks.length === 0) chunks.push(current)
  return chunks
}
