// A NAT set read for an import that holds memory bounded by a chunk, not by the set (issue 31 item 9;
// docs/decisions.md, "The CLI's NAT import within 300 MB"). Each file is loaded, decoded and read on
// its own, in name order, and let go before the next: every line is read once here, so the problems,
// their order and their count are readNatEntries's; the small files (NAT00010, NAT00020, NAT00030,
// NAT00030A, NAT00060: what the activities refer to) are kept as records, the client files' lines only
// as where they are (ClientLineIndex), and what the organisation check needs is counted as the lines
// are read. The client files' records are then read again a chunk of whole clients at a time.
import { ClientLineIndex } from './client-lines.ts'
import type { NatFileId } from './layouts/index.ts'
import { OrganisationTally } from './organisation-check.ts'
import { type NatReadOptions, type NatReadResult, NatSetReading, sortedByName } from './read-file-set.ts'
import type { NatRecord } from './records.ts'

export interface NatIndexedSet extends NatReadResult {
  /**
   * The small files' records, whole; the client files' arrays are empty (their lines are read again
   * chunk by chunk: `clientChunks`).
   */
  records: NatReadResult['records']
  /** Lines read without a problem, every file's (the small files' records and the client files' lines). */
  recordCount: number
  /** The training organisation identifiers of the lines read (otherOrganisations without the lines). */
  organisations: OrganisationTally
  /**
   * The client files' records a run of whole clients at a time (at least `chunkLines` lines a chunk),
   * cut as natToResourceChunks cuts a whole read; give them to mapClientChunks. Read once.
   */
  clientChunks(chunkLines: number): Generator<NatReadResult['records'], void, void>
}

/** A file of a set by name, its bytes loaded only when it is read. */
export type NatEntryLoader = (name: string) => Uint8Array | Promise<Uint8Array>

/** Reads the named files (NAT files and others, as a folder or zip lists them), loading each NAT file's bytes in turn. */
export async function indexNatEntries(
  names: readonly string[],
  load: NatEntryLoader,
  options: NatReadOptions = {},
): Promise<NatIndexedSet> {
  const reading = new NatSetReading(options)
  const organisations = new OrganisationTally()
  const index = new ClientLineIndex()
  const tally = (record: NatRecord) => organisations.add(record)
  for (const { name } of sortedByName(names.map((name) => ({ name })))) {
    const fileId: NatFileId | undefined = reading.wants(name)
    if (!fileId) continue
    const bytes = await load(name)
    reading.read(
      fileId,
      name,
      bytes,
      ClientLineIndex.isClientFile(fileId)
        ? index.sinkFor(fileId, name, tally)
        : {
            // The small files' records are kept as records (each chunk maps them again); only counted here.
            take: (record) => {
              tally(record)
              return false
            },
          },
    )
    index.textRead(fileId)
  }
  const read = reading.finish()
  const small = Object.values(read.records).reduce((sum, records) => sum + records.length, 0)
  return {
    ...read,
    recordCount: small + index.lines,
    organisations,
    clientChunks: (chunkLines) => index.chunks(chunkLines),
  }
}
