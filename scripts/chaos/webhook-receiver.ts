// The chaos run's webhook receiver (issue 33): one HTTP server on 127.0.0.1 in the chaos process,
// one path per RTO (each RTO's SMS registers an endpoint for every event type at
// /chaos/<rto>), that verifies every delivery with the `standardwebhooks` package's own verifier and
// the endpoint's secret, and is itself a fault target: on a seeded draw it answers 500 or stalls past
// the service's WEBHOOK_TIMEOUT_SECONDS (then answers 200, too late to count), until calmed when the
// other faults stop. A delivery counts only when verified and answered 200 at once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import type { Random } from './records.ts'

export interface Delivery {
  rto: string
  /** webhook-id: the event's id. */
  id: string
  /** The body's own id and rtoid (checked against webhook-id and the path). */
  bodyId: string
  bodyRto: string
}

export interface ReceiverOptions {
  random: Random
  /** Chance that an attempt is answered 500, and that it stalls past the service's timeout. */
  failRate: number
  stallRate: number
  stallMs: number
}

export class WebhookReceiver {
  readonly delivered: Delivery[] = []
  readonly counts = { attempts: 0, answered500: 0, stalled: 0, refusedSignature: 0, unknownPath: 0 }
  readonly refusals: unknown[] = []
  readonly #options: ReceiverOptions
  readonly #verifiers = new Map<string, Webhook>()
  readonly #stalls = new Set<NodeJS.Timeout>()
  #calm = false
  #server = createServer((request, response) => void this.#handle(request, response))
  #port = 0

  constructor(options: ReceiverOptions) {
    this.#options = options
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(0, '127.0.0.1', () => resolve())
    })
    this.#port = (this.#server.address() as AddressInfo).port
  }

  get port(): number {
    return this.#port
  }

  urlFor(rto: string): string {
    return `http://127.0.0.1:${this.#port}/chaos/${rto}`
  }

  /** The secret the service answered when the RTO's endpoint was registered. */
  trust(rto: string, secret: string): void {
    this.#verifiers.set(rto, new Webhook(secret))
  }

  /** No more failures or stalls (the run's faults have stopped): what is behind is delivered. */
  calm(): void {
    this.#calm = true
  }

  /** Distinct event ids delivered, per RTO. */
  deliveredIds(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>()
    for (const d of this.delivered) {
      const ids = out.get(d.rto) ?? new Set<string>()
      ids.add(d.id)
      out.set(d.rto, ids)
    }
    return out
  }

  async stop(): Promise<void> {
    for (const stall of this.#stalls) clearTimeout(stall)
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > 1_000_000) {
        response.writeHead(413).end()
        return
      }
      chunks.push(chunk)
    }
    this.counts.attempts++
    const rto = /^\/chaos\/(\d+)$/.exec(request.url ?? '')?.[1]
    const verifier = rto ? this.#verifiers.get(rto) : undefined
    if (!rto || !verifier || request.method !== 'POST') {
      this.counts.unknownPath++
      response.writeHead(404).end()
      return
    }
    const draw = this.#options.random.next()
    if (!this.#calm && draw < this.#options.failRate) {
      this.counts.answered500++
      response.writeHead(500).end()
      return
    }
    if (!this.#calm && draw < this.#options.failRate + this.#options.stallRate) {
      this.counts.stalled++
      const stall = setTimeout(() => {
        this.#stalls.delete(stall)
        if (!response.destroyed) response.writeHead(200).end()
      }, this.#options.stallMs)
      this.#stalls.add(stall)
      return
    }
    const body = Buffer.concat(chunks).toString('utf8')
    const headers: Record<string, string> = {}
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const value = request.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    let event: { id?: unknown; rtoid?: unknown }
    try {
      event = verifier.verify(body, headers) as { id?: unknown; rtoid?: unknown }
    } catch (error) {
      this.counts.refusedSignature++
      if (this.refusals.length < 10) this.refusals.push({ rto, id: headers['webhook-id'], error: String(error) })
      response.writeHead(401).end()
      return
    }
    this.delivered.push({ rto, id: headers['webhook-id']!, bodyId: String(event.id), bodyRto: String(event.rtoid) })
    response.writeHead(200).end()
  }
}
