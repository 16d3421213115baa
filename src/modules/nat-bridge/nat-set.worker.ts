// The worker thread that reads and maps one NAT file set (nat-set.ts) for the service's thread
// (nat-set-reader.ts): it opens the set given in workerData, says what it holds, then answers requests
// for the mapped records, a chunk at a time, and for the NAT places of records and fields, until the
// service's thread ends it. Nothing here touches the database.
import { parentPort, workerData } from 'node:worker_threads'
import {
  type DescribeRequest,
  describe,
  type LocateRequest,
  type NatSetOptions,
  type OpenedNatSet,
  openNatSet,
  placesOf,
} from './nat-set.ts'

export interface NatSetWorkerData {
  zip: Uint8Array
  options: NatSetOptions
}

export type NatSetWorkerRequest =
  | { id: number; op: 'records'; size: number }
  | { id: number; op: 'locate'; requests: LocateRequest[] }
  | { id: number; op: 'describe'; requests: DescribeRequest[] }
  | { id: number; op: 'uids'; resourceTypes: string[] }

const port = parentPort
if (!port) throw new Error('nat-set.worker.ts runs as a worker thread')
const { zip, options } = workerData as NatSetWorkerData

const opened = await openNatSet(zip, options, (progress) => port.postMessage({ kind: 'progress', progress }))
if ('refused' in opened) {
  port.postMessage({ kind: 'refused', refusal: opened })
} else {
  port.postMessage({ kind: 'opened', summary: opened.summary })
  serve(opened)
}

function serve(set: OpenedNatSet): void {
  let next = 0
  port!.on('message', (request: NatSetWorkerRequest) => {
    try {
      if (request.op === 'records') {
        const chunk = set.records.slice(next, next + request.size)
        next += chunk.length
        port!.postMessage({
          id: request.id,
          records: chunk.map(({ resourceType, uid, record }) => ({ resourceType, uid, record })),
        })
      } else if (request.op === 'describe') {
        port!.postMessage({ id: request.id, descriptions: request.requests.map((item) => describe(set, item)) })
      } else if (request.op === 'uids') {
        const types = new Set(request.resourceTypes)
        const uids = set.records
          .filter((r) => types.has(r.resourceType))
          .map(({ resourceType, uid }) => ({ resourceType, uid }))
        port!.postMessage({ id: request.id, uids })
      } else {
        port!.postMessage({ id: request.id, places: request.requests.map((item) => placesOf(set.origins, item)) })
      }
    } catch (error) {
      port!.postMessage({ id: request.id, error: (error as Error).message })
    }
  })
}
