// Many records into a batch in few requests. When the service offers the bulk upload (POST
// .../transaction-batch/{token}/records, NDJSON: an extension of the API, not in the specification),
// records go as NDJSON lines, gzip-compressed, in requests of at most 1,000 records within the record,
// decompressed and compressed limits, a few in flight at once but never two carrying the same record;
// otherwise one upload per record, a few at a time. The offer is read once per client from the
// service's OpenAPI description (GET /openapi.json): the operation must be there, and its x-maxRecords
// is the most lines one request may carry.
import { promisify } from 'node:util'
import { constants, gzip as gzipCallback } from 'node:zlib'
import type { Http } from '../http.ts'
import type { components } from '../generated/openapi.ts'
import { BulkUploadError, ServiceError, UsageError } from '../errors.ts'
import type { Limits } from '../limits.ts'
import type { RequestOptions } from '../request-options.ts'
import { kindOf, type ResourceRecord, type ResourceType } from '../resources.ts'
import { eachBounded, requestOptionsOf, type OnProgress } from './progress.ts'

const gzipAsync = promisify(gzipCallback)
// The fastest level: NDJSON of records compresses 30 to 40 times even so (the 10 MiB decompressed limit
// binds long before the 1 MiB compressed one), and the default level cost the client four times the CPU
// for a body a third smaller (issue 19's bench: compressing was most of the SDK's work per record).
const gzip = (data: Buffer) => gzipAsync(data, { level: constants.Z_BEST_SPEED })

export const BULK_UPLOAD_PATH = '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/records'
const NDJSON = 'application/x-ndjson'
/** A compressed request aims at this share of the compressed limit, so that one a little less compressible still fits. */
const COMPRESSED_TARGET = 0.9
/**
 * Bulk requests in flight at once by default. One request is one transaction on one database
 * connection and is checked on the service's one thread; a few at once keep the service's event loop,
 * the database and this client busy at the same time (issue 19's bench, two cores, the same service:
 * four at once stored 11,100 Students a second, one after the other 7,600).
 */
const DEFAULT_BULK_CONCURRENCY = 3
/**
 * Records per bulk request at most, below the limits: requests of about 2 MB let the first go sooner
 * and the last end sooner than requests filled to the 10 MiB limit, so the requests in flight overlap
 * for more of the upload (the same bench: 1,000 per request stored a tenth to a fifth more per second
 * than 3,334), for a few milliseconds more of each request's own work (a transaction and its commit).
 */
const BULK_REQUEST_RECORDS = 1_000

export type BulkUploadResult = components['schemas']['BulkUploadResult']

/** What the service says of its bulk upload: that it takes it, and how many records one request may carry. */
export interface BulkUploadOffer {
  maxRecords: number
}

/** The offer in an OpenAPI description, or undefined when the description has no bulk upload. */
export function bulkUploadOfferIn(document: unknown): BulkUploadOffer | undefined {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> } | undefined)?.paths
  const operation = paths?.[BULK_UPLOAD_PATH]?.post as
    | { requestBody?: { content?: Record<string, unknown> }; 'x-maxRecords'?: unknown }
    | undefined
  if (!operation?.requestBody?.content?.[NDJSON]) return undefined
  const max = operation['x-maxRecords']
  // A service that does not say its limit: the limit the extension was published with.
  return { maxRecords: typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : 10_000 }
}

export interface UploadManyOptions extends RequestOptions {
  /** Use the bulk upload when the service offers it (default), or never (false): one request per record. */
  bulk?: boolean
  /** Uploads in flight at once when records go one by one (default 4). */
  concurrency?: number
  /**
   * Bulk requests in flight at once (default 3, at most 16). A request never goes while one in flight
   * carries any of its records (same resource type and UID), so a record given twice ends as its last
   * version, as if the requests went one by one.
   */
  bulkConcurrency?: number
  onProgress?: OnProgress
}

export interface UploadManyOutcome {
  transactionBatchToken: string
  /** Records uploaded: all of those given. */
  recordCount: number
  /** Whether the bulk upload was used. */
  bulk: boolean
  /** Requests sent (one per record without the bulk upload), retries not counted. */
  requests: number
  /**
   * With the bulk upload: records that were new to the batch, and records that replaced one (a record
   * already in the batch, or given earlier in the same call), as single uploads would have answered 201
   * and 200. Undefined without it.
   */
  created?: number
  replaced?: number
  byResourceType?: Record<ResourceType, { created: number; replaced: number }>
}

/** What uploadMany needs of the client: its HTTP layer and limits, the offer, and the single upload. */
export interface UploadManyClient {
  readonly http: Http
  readonly limits: Limits
  bulkUploadOffer(options: RequestOptions): Promise<BulkUploadOffer | undefined>
  upload(
    jurisdiction: string,
    transactionBatchToken: string,
    record: ResourceRecord,
    options: RequestOptions,
  ): Promise<unknown>
}

export async function uploadMany(
  client: UploadManyClient,
  jurisdiction: string,
  transactionBatchToken: string,
  records: readonly ResourceRecord[],
  options: UploadManyOptions = {},
): Promise<UploadManyOutcome> {
  const request = requestOptionsOf(options)
  const total = records.length
  let done = 0
  const offer = options.bulk === false || total === 0 ? undefined : await offerOrNone(client, request)
  if (!offer) {
    await eachBounded(records, options.concurrency ?? 4, async (record) => {
      await client.upload(jurisdiction, transactionBatchToken, record, request)
      options.onProgress?.({ phase: 'upload', done: ++done, total })
    })
    return { transactionBatchToken, recordCount: total, bulk: false, requests: total }
  }
  const chunker = new Chunker(records, {
    ...client.limits,
    recordsPerRequest: Math.min(client.limits.recordsPerRequest, offer.maxRecords, BULK_REQUEST_RECORDS),
  })
  const outcome = {
    transactionBatchToken,
    recordCount: total,
    bulk: true,
    requests: 0,
    created: 0,
    replaced: 0,
    byResourceType: {} as Record<ResourceType, { created: number; replaced: number }>,
  }
  const slots = bulkConcurrencyOf(options)
  const inFlight = new Map<Promise<void>, Chunk>()
  // Requests that ended, by their first record: what was stored, and the first refusal or failure.
  const stored = new Set<number>()
  let failed: { chunk: Chunk; error: unknown } | undefined
  const send = async (chunk: Chunk): Promise<void> => {
    let answer: BulkUploadResult
    try {
      answer = (await client.http.request('post', BULK_UPLOAD_PATH, {
        ...request,
        path: { jurisdiction, transactionBatchToken },
        encoded: { bytes: chunk.body, contentType: NDJSON },
        idempotent: true, // every line creates or replaces a record by its UID: safe to send again
      })) as BulkUploadResult
    } catch (error) {
      if (!failed || chunk.start < failed.chunk.start) failed = { chunk, error }
      return
    }
    stored.add(chunk.start)
    outcome.requests++
    outcome.created += answer.created
    outcome.replaced += answer.replaced
    for (const [type, counts] of Object.entries(answer.byResourceType) as [
      ResourceType,
      { created: number; replaced: number },
    ][]) {
      const sum = outcome.byResourceType[type] ?? { created: 0, replaced: 0 }
      outcome.byResourceType[type] = {
        created: sum.created + counts.created,
        replaced: sum.replaced + counts.replaced,
      }
    }
    done += chunk.end - chunk.start
    options.onProgress?.({ phase: 'upload', done, total })
  }
  // A request waits while one in flight carries any of its records: the later version must win.
  const sharesRecords = (chunk: Chunk) => [...inFlight.values()].some((other) => overlaps(chunk.keys, other.keys))
  // The next request is serialised and compressed while those before it are in flight.
  let next = chunker.next()
  try {
    while (!failed) {
      const chunk = await next
      if (!chunk) break
      next = chunker.next()
      next.catch(() => {}) // awaited on the next turn; a failure of a request in flight comes first
      while (!failed && inFlight.size > 0 && (inFlight.size >= slots || sharesRecords(chunk)))
        await Promise.race(inFlight.keys())
      if (failed) break
      const sending: Promise<void> = send(chunk).finally(() => inFlight.delete(sending))
      inFlight.set(sending, chunk)
    }
  } finally {
    await Promise.all(inFlight.keys())
  }
  if (failed) {
    const { chunk, error } = failed
    if (error instanceof ServiceError && error.status === 400 && error.problem?.lines)
      throw new BulkUploadError(error, chunk.start, storedPrefix(stored, chunker.bounds))
    throw error
  }
  return outcome
}

/** Bulk requests in flight at once: the option, or the default. */
function bulkConcurrencyOf(options: UploadManyOptions): number {
  const value = options.bulkConcurrency ?? DEFAULT_BULK_CONCURRENCY
  if (!Number.isInteger(value) || value < 1 || value > 16)
    throw new UsageError(`bulkConcurrency must be an integer from 1 to 16 (got ${value})`)
  return value
}

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  for (const key of small) if (large.has(key)) return true
  return false
}

/** How many of the first records given are stored: those of the requests, in order, up to the first not stored. */
function storedPrefix(stored: ReadonlySet<number>, bounds: ReadonlyMap<number, number>): number {
  let end = 0
  while (stored.has(end)) end = bounds.get(end)!
  return end
}

/** The offer, or none when the description cannot be read now (records then go one by one, with retries). */
async function offerOrNone(client: UploadManyClient, request: RequestOptions): Promise<BulkUploadOffer | undefined> {
  try {
    return await client.bulkUploadOffer(request)
  } catch (error) {
    if (request.signal?.aborted) throw error
    return undefined
  }
}

interface Chunk {
  /** The records [start, end) of those given. */
  start: number
  end: number
  /** Their NDJSON lines, gzip-compressed. */
  body: Uint8Array
  /** The records it carries, as resource type and UID (UIDs compare without case, as the service does). */
  keys: Set<string>
}

/**
 * Cuts the records into requests: as many lines as fit the record limit and the decompressed limit,
 * then, if the compressed body is above its limit, fewer. What one request compressed to sizes the
 * next, so that most requests are compressed once.
 */
class Chunker {
  readonly #records: readonly ResourceRecord[]
  readonly #limits: Limits
  #start = 0
  #targetBytes: number
  /** Each request made so far: its first record and the record after its last. */
  readonly bounds = new Map<number, number>()

  constructor(records: readonly ResourceRecord[], limits: Limits) {
    this.#records = records
    this.#limits = limits
    this.#targetBytes = limits.decompressedBytes
  }

  async next(): Promise<Chunk | undefined> {
    const start = this.#start
    if (start >= this.#records.length) return undefined
    const { decompressedBytes, compressedBytes, recordsPerRequest } = this.#limits
    const lines: Buffer[] = []
    let size = 0
    for (let index = start; index < this.#records.length && lines.length < recordsPerRequest; index++) {
      const line = lineOf(this.#records[index]!)
      if (line.length > decompressedBytes) {
        throw new UsageError(
          `record ${index} is ${line.length} bytes as an NDJSON line, above the ${decompressedBytes}-byte decompressed limit`,
        )
      }
      if (size + line.length > this.#targetBytes && lines.length > 0) break
      lines.push(line)
      size += line.length
    }
    let body = await gzip(Buffer.concat(lines, size))
    while (body.length > compressedBytes) {
      if (lines.length === 1)
        throw new UsageError(
          `record ${start} is ${body.length} bytes compressed, above the ${compressedBytes}-byte limit`,
        )
      // Keep the share of the lines that should compress to the target, and try again.
      const keep = Math.max(1, Math.floor((lines.length * compressedBytes * COMPRESSED_TARGET) / body.length))
      lines.length = Math.min(keep, lines.length - 1)
      size = lines.reduce((sum, line) => sum + line.length, 0)
      body = await gzip(Buffer.concat(lines, size))
    }
    // The next request aims at the target share of the compressed limit at this compression ratio.
    this.#targetBytes = Math.max(
      1,
      Math.min(decompressedBytes, Math.floor((size * compressedBytes * COMPRESSED_TARGET) / Math.max(1, body.length))),
    )
    this.#start = start + lines.length
    this.bounds.set(start, this.#start)
    const keys = new Set<string>()
    for (let index = start; index < this.#start; index++) {
      const { resourceType, uid } = kindOf(this.#records[index]!)
      keys.add(`${resourceType}/${uid.toLowerCase()}`)
    }
    return { start, end: this.#start, body, keys }
  }
}

/** One NDJSON line: {"resourceType": "Student", "record": {...}} and a line feed. */
function lineOf(record: ResourceRecord): Buffer {
  return Buffer.from(`${JSON.stringify({ resourceType: kindOf(record).resourceType, record })}\n`)
}
