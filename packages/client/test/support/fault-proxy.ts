// A loopback proxy in front of the service under test that can answer in the service's place (429,
// 503, 401), drop the connection (before forwarding, or after the service answered), answer late, or never answer (before the headers, or part-way
// through the body), and that logs every request it forwards with its decompressed body size and
// User-Agent. Both ends are 127.0.0.1; nothing leaves the machine.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { gunzipSync } from 'node:zlib'
import type { AddressInfo } from 'node:net'

export type Fault =
  | { status: number; headers?: Record<string, string> }
  | 'drop'
  /** Forward the request, let the service answer, then drop the connection: the answer is lost. */
  | 'drop-answer'
  /** Never answer: the request is held until the client gives up (or the proxy closes). */
  | 'hang'
  /** Answer 200 with the headers and the first byte of a body, then nothing more. */
  | 'hang-body'
  /** Forward the request, but only after this long. */
  | { delayMs: number }

export interface Seen {
  method: string
  path: string
  /** Bytes on the wire and once gunzipped. */
  wireBytes: number
  bodyBytes: number
  forwarded: boolean
  status: number | 'dropped' | 'hung'
  userAgent: string | undefined
  /** The Idempotency-Key header sent, if any. */
  idempotencyKey: string | undefined
}

/** Decides, per request, whether to inject a fault; returning undefined forwards it. */
export type FaultRule = (request: { method: string; path: string; index: number }) => Fault | undefined

export class FaultProxy {
  readonly seen: Seen[] = []
  readonly #target: string
  #rules: FaultRule[] = []
  #server: Server | undefined
  baseUrl = ''

  constructor(target: string) {
    this.#target = target
  }

  async start(): Promise<this> {
    this.#server = createServer((request, response) => {
      void this.#handle(request, response)
    })
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    this.baseUrl = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  /** Adds a rule; the first rule that answers wins. */
  inject(rule: FaultRule): this {
    this.#rules.push(rule)
    return this
  }

  /** Injects `fault` into the next `times` requests that `matches` accepts. */
  injectTimes(
    times: number,
    fault: Fault,
    matches: (request: { method: string; path: string }) => boolean = () => true,
  ): this {
    let left = times
    return this.inject((request) => {
      if (left <= 0 || !matches(request)) return undefined
      left--
      return fault
    })
  }

  clear(): void {
    this.#rules = []
    this.seen.length = 0
  }

  forwarded(method: string, pathPattern: RegExp): Seen[] {
    return this.seen.filter((s) => s.forwarded && s.method === method && pathPattern.test(s.path))
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections()
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve())
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const wire = Buffer.concat(chunks)
    const body = request.headers['content-encoding'] === 'gzip' && wire.length > 0 ? gunzipSync(wire) : wire
    const method = request.method ?? 'GET'
    const path = request.url ?? '/'
    const index = this.seen.length
    const record: Seen = {
      method,
      path,
      wireBytes: wire.length,
      bodyBytes: body.length,
      forwarded: false,
      status: 0,
      userAgent: request.headers['user-agent'],
      idempotencyKey: request.headers['idempotency-key'] as string | undefined,
    }
    this.seen.push(record)
    let fault: Fault | undefined
    for (const rule of this.#rules) {
      // in order, stopping at the first that answers: a rule counts only what it takes
      fault = rule({ method, path, index })
      if (fault !== undefined) break
    }
    if (fault === 'drop') {
      record.status = 'dropped'
      request.socket.destroy()
      return
    }
    if (fault === 'hang') {
      record.status = 'hung'
      return
    }
    if (fault === 'hang-body') {
      record.status = 'hung'
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      response.write('{')
      return
    }
    if (typeof fault === 'object' && 'delayMs' in fault)
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs))
    else if (typeof fault === 'object') {
      record.status = fault.status
      response.writeHead(fault.status, { 'content-type': 'application/problem+json', ...fault.headers })
      response.end(JSON.stringify({ type: 'about:blank', title: 'injected by the test proxy', status: fault.status }))
      return
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers)
        .filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))
        .map(([k, v]) => [k, String(v)]),
    )
    const answer = await fetch(`${this.#target}${path}`, {
      method,
      headers,
      ...(wire.length > 0 ? { body: wire } : {}),
    })
    record.forwarded = true
    record.status = answer.status
    const text = Buffer.from(await answer.arrayBuffer())
    if (fault === 'drop-answer') {
      record.status = 'dropped'
      request.socket.destroy()
      return
    }
    const back: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) back[name] = value
    })
    if (request.socket.destroyed) return // the client gave up while this one was delayed
    response.writeHead(answer.status, back)
    response.end(text)
  }
}
