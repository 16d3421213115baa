// The worker thread that reads and maps one NAT file set (nat-set.ts) for the service's thread
// (nat-set-reader.ts): it opens the set given in workerData, says what it holds, then answers requests
// for the mapped records, a chunk at a time, and for the NAT places of records and fields, until the
// service's thread ends it. Nothing here touches the database.
import { parentPort, workerData } from 'node:worker_threads'
import { GarbageBudget } from './garbage-budget.ts'
import {
  type DescribeRequest,
  describe,
  type LocateRequest,
  type NatSetOptions,
  type NatSetRecord,
  type OpenedNatSet,
  openNatSet,
  placesOf,
} from './nat-set.ts'

export interface NatSetWorkerData {
  options: NatSetOptions
}

/** The zip, the worker's first message: its bytes moved, not copied, and let go once read. */
export interface NatSetWorkerZip {
  zip: Uint8Array
}

export type NatSetWorkerRequest =
  | { id: number; op: 'records'; size: number }
  | { id: number; op: 'locate'; requests: LocateRequest[] }
  | { id: number; op: 'describe'; requests: DescribeRequest[] }
  | { id: number; op: 'uids'; resourceTypes: string[]; from: number; atLeast: number }

/**
 * One answer to 'uids': the UIDs of each asked type (in the order asked) that the compressed chunks
 * from `from` hold, read until at least `atLeast` are found; `next` is where the next answer starts,
 * null once every chunk was read.
 */
export interface NatSetUidPage {
  uids: string[][]
  next: number | null
}

/**
 * Garbage the worker may carry between two collections (garbage-budget.ts). At 100,000 activities on
 * PostgreSQL (bench/results.md, eighteenth session) the service's peak 392 to 414 MB against 448 to 496
 * on main, for about 2.5 s more on an 18.8 s import; 16 MB collected twice as often for no lower peak.
 */
const GARBAGE_BUDGET_MB = 32

const port = parentPort
if (!port) throw new Error('nat-set.worker.ts runs as a worker thread')
const { options } = workerData as NatSetWorkerData
const garbage = new GarbageBudget(GARBAGE_BUDGET_MB)

const opened = await openNatSet(
  await new Promise<Uint8Array>((resolve) => port.once('message', (message: NatSetWorkerZip) => resolve(message.zip))),
  options,
  {
    onFileRead: (progress) => {
      port.postMessage({ kind: 'progress', progress })
      garbage.spend()
    },
    betweenChunks: () => garbage.spend(),
  },
)
// The files' texts went with the last chunk (33 MB at 100,000 activities): gone before the upload starts.
garbage.collect()
if ('refused' in opened) {
  port.postMessage({ kind: 'refused', refusal: opened })
} else {
  port.postMessage({ kind: 'opened', summary: opened.summary })
  serve(opened)
}

function serve(set: OpenedNatSet): void {
  // The records are drawn in order, a compressed chunk inflated at a time.
  let chunkIndex = 0
  let current: NatSetRecord[] = []
  let offset = 0
  const draw = (size: number): NatSetRecord[] => {
    const drawn: NatSetRecord[] = []
    while (drawn.length < size) {
      if (offset >= current.length) {
        const next = set.records.chunk(chunkIndex)
        if (!next) break
        chunkIndex++
        current = next
        // The chunks drawn before are garbage once posted (the service's thread has its own copy).
        garbage.spend()
        offset = 0
        continue
      }
      const take = current.slice(offset, offset + size - drawn.length)
      offset += take.length
      drawn.push(...take)
    }
    if (offset >= current.length) current = [] // let the chunk go once drawn
    return drawn
  }
  port!.on('message', (request: NatSetWorkerRequest) => {
    try {
      if (request.op === 'records') {
        port!.postMessage({ id: request.id, records: draw(request.size) })
      } else if (request.op === 'describe') {
        port!.postMessage({ id: request.id, descriptions: describe(set, request.requests) })
      } else if (request.op === 'uids') {
        port!.postMessage({ id: request.id, page: uidPage(set, request) })
      } else {
        port!.postMessage({ id: request.id, places: placesOf(set, request.requests) })
      }
    } catch (error) {
      port!.postMessage({ id: request.id, error: (error as Error).message })
    }
  })
}

function uidPage(
  set: OpenedNatSet,
  { resourceTypes, from, atLeast }: { resourceTypes: string[]; from: number; atLeast: number },
): NatSetUidPage {
  const uids = resourceTypes.map((): string[] => [])
  let found = 0
  let index = from
  for (; found < atLeast; index++) {
    const chunk = set.records.chunk(index)
    if (!chunk) return { uids, next: null }
    for (const { resourceType, uid } of chunk) {
      const type = resourceTypes.indexOf(resourceType)
      if (type === -1) continue
      uids[type]!.push(uid)
      found++
    }
    // Each chunk read is garbage once its UIDs are taken.
    garbage.spend()
  }
  return { uids, next: index < set.records.chunkCount ? index : null }
}
