// The mapped set uploaded chunk by chunk (natToResourceChunks): each chunk's held history carried
// forward, its records uploaded into the batch, and what the findings need of it kept in compact
// indexes before its lines and records are let go. So the import holds one chunk's lines and records
// at a time, plus the indexes, whatever the set's size (issue 31 item 9; docs/decisions.md, "NAT imports:
// bounded, fair jobs with progress").
import { CompressedRecords, type MappedRecord, type NatProblem, type NatResourceChunk } from '@vetrs/avetmiss'
import { BulkUploadError, type ResourceRecord, type UploadManyOutcome, type Vetrs } from '@vetrs/client'
import { withHeldHistory } from './held-history.ts'

export interface ChunkedUpload {
  /**
   * What the findings need of the records uploaded, compressed chunk by chunk: each record's body, its
   * compact origin (file, line, field) and its identity in the files' terms; no NAT line is kept.
   */
  uploaded: CompressedRecords
  /** The sum of each chunk's upload; undefined when a chunk was refused. */
  upload: Omit<UploadManyOutcome, 'transactionBatchToken'> | undefined
  /** The refusal of the chunk refused, with that chunk's records (its indexes are into them). */
  refused?: { error: BulkUploadError; records: readonly MappedRecord[] }
  /** Records mapped (and uploaded, unless refused), and by type. */
  records: number
  recordsByType: Record<string, number>
  /** Enrolments whose held history was carried forward. */
  carried: number
  /** The mapping's problems, in file and line order (the generator's return). */
  problems: NatProblem[]
}

export interface ChunkedUploadOptions {
  /** Told after each chunk is uploaded: records uploaded so far. */
  onUploaded?(done: number): void
}

/**
 * Maps and uploads every chunk into the batch. Stops at the first chunk the upload refuses (the caller
 * discards the batch); any other failure is thrown.
 */
export async function uploadInChunks(
  client: Vetrs,
  jurisdiction: Parameters<Vetrs['uploadMany']>[0],
  token: string,
  chunks: Generator<NatResourceChunk, NatProblem[], void>,
  options: ChunkedUploadOptions = {},
): Promise<ChunkedUpload> {
  const uploaded = new CompressedRecords()
  const result: ChunkedUpload = {
    uploaded,
    upload: undefined,
    records: 0,
    recordsByType: {},
    carried: 0,
    problems: [],
  }
  const holds = new Map<string, boolean>()
  let upload: ChunkedUpload['upload']
  for (;;) {
    const next = chunks.next()
    if (next.done) {
      result.problems = next.value
      break
    }
    // Continuing students: a NAT set carries one collection period, the held data the whole history.
    const { records, carried } = await withHeldHistory(client, next.value.records, holds)
    result.carried += carried
    for (const mapped of records)
      result.recordsByType[mapped.resourceType] = (result.recordsByType[mapped.resourceType] ?? 0) + 1
    uploaded.add(records)
    result.records += records.length
    if (records.length === 0) continue
    try {
      // The mapping restates the API's resource shapes (the package imports nothing of the service);
      // its records are the upload bodies, checked against the service's schemas by its own tests.
      const bodiesOfChunk = records.map((mapped) => mapped.record as unknown as ResourceRecord)
      const done = upload?.recordCount ?? 0
      const { transactionBatchToken: _, ...uploaded } = await client.uploadMany(jurisdiction, token, bodiesOfChunk, {
        onProgress: (event) => {
          if (event.phase === 'upload') options.onUploaded?.(done + event.done)
        },
      })
      upload = upload ? sumUploads(upload, uploaded) : uploaded
    } catch (error) {
      if (!(error instanceof BulkUploadError)) throw error
      result.refused = { error, records }
      return result
    }
  }
  result.upload = upload ?? { recordCount: 0, bulk: true, requests: 0 }
  return result
}

function sumUploads(
  a: Omit<UploadManyOutcome, 'transactionBatchToken'>,
  b: Omit<UploadManyOutcome, 'transactionBatchToken'>,
): Omit<UploadManyOutcome, 'transactionBatchToken'> {
  const sum: Omit<UploadManyOutcome, 'transactionBatchToken'> = {
    recordCount: a.recordCount + b.recordCount,
    bulk: a.bulk && b.bulk,
    requests: a.requests + b.requests,
  }
  if (a.created !== undefined || b.created !== undefined) {
    sum.created = (a.created ?? 0) + (b.created ?? 0)
    sum.replaced = (a.replaced ?? 0) + (b.replaced ?? 0)
  }
  if (a.byResourceType || b.byResourceType) {
    const byType: Record<string, { created: number; replaced: number }> = { ...a.byResourceType }
    for (const [type, counts] of Object.entries(b.byResourceType ?? {})) {
      const before = byType[type] ?? { created: 0, replaced: 0 }
      byType[type] = { created: before.created + counts.created, replaced: before.replaced + counts.replaced }
    }
    sum.byResourceType = byType as UploadManyOutcome['byResourceType']
  }
  return sum
}
