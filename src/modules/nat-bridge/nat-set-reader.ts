// The service's side of a NAT set read in a worker thread (nat-set.worker.ts): open, draw the mapped
// records a chunk at a time, locate records and fields in the NAT files, close. Reading and mapping
// 100,000 activities is seconds of CPU and a few hundred MB; in the worker it neither holds up the
// event loop nor stays in the service's heap once closed. One set is open at a time in a process
// (others wait their turn), and the worker's heap is bounded, so memory stays bounded too.
import { Worker } from 'node:worker_threads'
import { DomainError } from '../../domain/errors.ts'
import type {
  DescribeRequest,
  LocateRequest,
  NatDescription,
  NatPlace,
  NatReadProgress,
  NatSetOptions,
  NatSetRecord,
  NatSetRefusal,
  NatSetSummary,
} from './nat-set.ts'
import type { NatSetUidPage, NatSetWorkerData, NatSetWorkerRequest, NatSetWorkerZip } from './nat-set.worker.ts'

const WORKER = new URL('./nat-set.worker.ts', import.meta.url)
const MiB = 1024 * 1024

/**
 * Heap for the worker: about 11 times the NAT files were measured for 100,000 activities (31 MB of
 * files, 340 MB of records and origins); 16 times, and never under 512 MB.
 */
export function workerHeapMb(maxFilesBytes: number): number {
  return Math.max(512, Math.ceil((maxFilesBytes / MiB) * 16))
}

/**
 * The worker's young generation. V8 sizes it from the machine (about 134 MB committed on a 2-core
 * machine with Node 24), and the worker's reading and mapping keeps it full. 48 MB cut the service's peak
 * RSS during a 100,000-activity import through nat-import from 736-758 MB to 634-653 MB (image flags,
 * alternating, bench/results.md, seventh session), for about 1 s more on a 14 s import; 24 MB saved no more
 * and cost 2 s.
 */
const WORKER_YOUNG_GENERATION_MB = 48

/** UIDs a page of `uidsOf` holds at least: two or so of the worker's compressed chunks. */
const UIDS_PER_PAGE = 5_000

let turn: Promise<unknown> = Promise.resolve()

/** Runs `work` when no other NAT set is open in this process: one at a time, in the order asked. */
export function oneSetAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = turn.then(work, work)
  turn = run.catch(() => {})
  return run
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void }

export class NatSetReader {
  readonly summary: NatSetSummary
  readonly #worker: Worker
  readonly #pending: Map<number, Pending>
  #nextId = 1

  private constructor(worker: Worker, summary: NatSetSummary, pending: Map<number, Pending>) {
    this.#worker = worker
    this.summary = summary
    this.#pending = pending
  }

  /**
   * Reads and maps the zip in a new worker. A zip that is not one, or damaged, is DomainError
   * nat-set-unreadable; one whose NAT files hold more than allowed (or that needs more memory than
   * the worker has) nat-set-too-large.
   */
  static open(
    zip: Uint8Array,
    options: NatSetOptions,
    onProgress?: (progress: NatReadProgress) => void,
  ): Promise<NatSetReader> {
    const data: NatSetWorkerData = { options }
    const worker = new Worker(WORKER, {
      workerData: data,
      resourceLimits: {
        maxOldGenerationSizeMb: workerHeapMb(options.maxFilesBytes),
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    })
    // A copy moved to the worker (the caller keeps its zip to store it): the worker lets it go once
    // read, where workerData would hold it for the worker's life. `new Uint8Array(zip)` copies into a
    // buffer of its own: a Buffer's slice() is a view, and moving its buffer (a pool's, or a database
    // row's) would take the caller's bytes with it.
    const copy = new Uint8Array(zip)
    const message: NatSetWorkerZip = { zip: copy }
    worker.postMessage(message, [copy.buffer])
    const pending = new Map<number, Pending>()
    return new Promise<NatSetReader>((resolve, reject) => {
      let reader: NatSetReader | undefined
      const fail = (error: Error) => {
        if (!reader) reject(error)
        for (const { reject: rejectRequest } of pending.values()) rejectRequest(error)
        pending.clear()
      }
      worker.on('error', (error: Error & { code?: string }) => fail(workerError(error)))
      worker.on('exit', (code) => fail(new Error(`the NAT set worker stopped (exit code ${code})`)))
      worker.on('message', (message: WorkerMessage) => {
        if ('kind' in message) {
          if (message.kind === 'progress') {
            onProgress?.(message.progress)
            return
          }
          if (message.kind === 'opened') {
            reader = new NatSetReader(worker, message.summary, pending)
            resolve(reader)
          } else {
            void worker.terminate()
            reject(refusalError(message.refusal))
          }
          return
        }
        const request = pending.get(message.id)
        if (!request) return
        pending.delete(message.id)
        if ('error' in message) request.reject(new Error(`the NAT set worker failed: ${message.error}`))
        else
          request.resolve(
            'records' in message
              ? message.records
              : 'descriptions' in message
                ? message.descriptions
                : 'page' in message
                  ? message.page
                  : message.places,
          )
      })
    })
  }

  /** The next mapped records, at most `size`, in the mapping's order; none once all were drawn. */
  nextRecords(size: number): Promise<NatSetRecord[]> {
    return this.#ask({ op: 'records', size }) as Promise<NatSetRecord[]>
  }

  /**
   * The UIDs of every mapped record of these types, in the mapping's order, a page of at least
   * `atLeast` at a time (the last may hold fewer): each page the UIDs of each type, in the order asked.
   * Pages, not the set: at 100,000 activities about 110,000 enrolments, which as one answer the worker
   * built by inflating every chunk with no collection between, and which this thread then held whole,
   * were the import's peak (bench/results.md, nineteenth session).
   */
  async *uidsOf(resourceTypes: readonly string[], atLeast = UIDS_PER_PAGE): AsyncGenerator<string[][], void, void> {
    for (let from: number | null = 0; from !== null; ) {
      const page = (await this.#ask({ op: 'uids', resourceTypes: [...resourceTypes], from, atLeast })) as NatSetUidPage
      yield page.uids
      from = page.next
    }
  }

  /** The NAT places of each request's record and fields. */
  locate(requests: LocateRequest[]): Promise<NatPlace[][]> {
    if (requests.length === 0) return Promise.resolve([])
    return this.#ask({ op: 'locate', requests }) as Promise<NatPlace[][]>
  }

  /** Each request's record in the files' identifiers, and its texts told in the files' terms. */
  describe(requests: DescribeRequest[]): Promise<NatDescription[]> {
    if (requests.length === 0) return Promise.resolve([])
    return this.#ask({ op: 'describe', requests }) as Promise<NatDescription[]>
  }

  async close(): Promise<void> {
    await this.#worker.terminate()
  }

  #ask(request: DistributiveOmit<NatSetWorkerRequest, 'id'>): Promise<unknown> {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#worker.postMessage({ ...request, id })
    })
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never

type WorkerMessage =
  | { kind: 'opened'; summary: NatSetSummary }
  | { kind: 'progress'; progress: NatReadProgress }
  | { kind: 'refused'; refusal: NatSetRefusal }
  | { id: number; records: NatSetRecord[] }
  | { id: number; places: NatPlace[][] }
  | { id: number; descriptions: NatDescription[] }
  | { id: number; page: NatSetUidPage }
  | { id: number; error: string }

function refusalError(refusal: NatSetRefusal): DomainError {
  if (refusal.refused === 'too-large')
    return new DomainError('nat-set-too-large', `${refusal.message} Nothing was stored.`)
  if (refusal.refused === 'undecodable')
    return new DomainError('nat-set-unreadable', `${refusal.message.replace(/\.?$/, '.')} Nothing was stored.`)
  return new DomainError('nat-set-unreadable', `${refusal.message}. Send the NAT files as a zip. Nothing was stored.`)
}

function workerError(error: Error & { code?: string }): Error {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new DomainError(
      'nat-set-too-large',
      'Reading and mapping the NAT files needed more memory than one import may use. Split the set (by period) over several imports. Nothing was stored.',
    )
  return error
}
