// What the chaos run saw and was told. Every HTTP attempt the simulated SMS clients make (through the
// SDK's `fetch` option: each attempt of each request, retries included) is observed with its time,
// endpoint, status and which API process served it; every 5xx keeps the start of its body. The ledger
// keeps only what the service acknowledged with a 2xx: uploads (batch, record, body hash), batches
// answered 200 Submitted, voids, declarations, assessment requests; the checks at the end hold the
// service to exactly that.

export interface Observation {
  rto: string
  method: string
  /** The path with its variable parts named: POST /{j}/transaction-batch/{token}/student. */
  endpoint: string
  path: string
  /** Milliseconds since the run started: request sent, answer's headers received (or failure). */
  start: number
  end: number
  /** The status, or 'network' (no answer: connection refused or reset) or 'aborted' (the SDK's timeout or signal). */
  status: number | 'network' | 'aborted'
  servedBy: string | null
  /** For a 5xx: the beginning of the body. */
  body?: string
  /** The first answer given again for a repeated Idempotency-Key (Idempotent-Replayed: true). */
  replayed?: boolean
  /** A 409 saying the first request with this Idempotency-Key is still running (held by a killed process, say). */
  keyInProgress?: boolean
}

export function endpointOf(method: string, path: string): string {
  const p = path
    .replace(/^\/vet-provider\/v1/, '')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{uid}')
    .replace(/\/transaction-batch\/[^/]+/, '/transaction-batch/{token}')
    .replace(/^\/(NSW|VIC|QLD|SA|WA|TAS|NT|ACT)\//, '/{j}/')
    .replace(/\/reporting-period\/[A-Z]+\/\d+/, '/reporting-period/{j}/{period}')
  return `${method} ${p}`
}

/** Requests in flight now, by endpoint (the fault injector kills an API process while a submit is). */
export const inFlight = new Map<string, number>()
const SUBMIT = 'POST /{j}/transaction-batch/{token}/submit'
export const submitsInFlight = () => inFlight.get(SUBMIT) ?? 0

/** A fetch that observes each attempt before handing it back to the SDK. */
export function observingFetch(rto: string, clock: () => number, observe: (o: Observation) => void): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const method = (init?.method ?? 'GET').toUpperCase()
    const base = { rto, method, path: url.pathname, endpoint: endpointOf(method, url.pathname), start: clock() }
    inFlight.set(base.endpoint, (inFlight.get(base.endpoint) ?? 0) + 1)
    try {
      const response = await fetch(input, init)
      const observation: Observation = {
        ...base,
        end: clock(),
        status: response.status,
        servedBy: response.headers.get('x-served-by'),
        ...(response.headers.get('idempotent-replayed') === 'true' ? { replayed: true } : {}),
      }
      if (response.status === 409 && (await response.clone().text()).includes('/problems/idempotency-key-in-progress'))
        observation.keyInProgress = true
      if (response.status >= 500) {
        // Read a copy: the SDK reads the answer itself.
        observation.body = (await response.clone().text()).slice(0, 300)
      }
      observe(observation)
      return response
    } catch (error) {
      const aborted = (error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError'
      observe({ ...base, end: clock(), status: aborted ? 'aborted' : 'network', servedBy: null })
      throw error
    } finally {
      inFlight.set(base.endpoint, (inFlight.get(base.endpoint) ?? 1) - 1)
    }
  }
}

export interface UploadEntry {
  rto: string
  batch: string
  resourceType: string
  uid: string
  hash: string
  /** 'single' (POST .../{segment}) or 'bulk' (uploadMany). */
  via: 'single' | 'bulk'
}

export interface BatchEntry {
  rto: string
  jurisdiction: string
  token: string
  /** The workflow that made it. */
  purpose: string
  /** Answered 200 Submitted, with numberOfRecordsSubmitted. */
  submitted?: { records: number; at: number }
  /** Submit got no answer (or a 5xx); the batch was then found Submitted: committed, not acknowledged. */
  submittedUnacknowledged?: boolean
  discarded?: boolean
  /** Failed validation results the API listed for its last validation (count), and duplicates among them. */
  validationResults?: number
  duplicateResultsSeen?: number
}

export interface DeclarationEntry {
  rto: string
  jurisdiction: string
  period: number
  userName: string
  at: number
}

export class Ledger {
  readonly uploads = new Map<string, UploadEntry>()
  readonly batches = new Map<string, BatchEntry>()
  readonly voids: { rto: string; batch: string; resourceType: string; uid: string }[] = []
  readonly declarations: DeclarationEntry[] = []
  readonly assessmentsRequested = new Map<string, number>()
  readonly operations = new Map<string, number>()

  count(kind: string, n = 1): void {
    this.operations.set(kind, (this.operations.get(kind) ?? 0) + n)
  }

  upload(entry: UploadEntry): void {
    // The latest acknowledged upload of a record into a batch is what the batch holds.
    this.uploads.set(`${entry.rto}|${entry.batch}|${entry.resourceType}|${entry.uid}`, entry)
    this.count(entry.via === 'single' ? 'upload (single)' : 'upload (records in bulk)')
  }
}
