// One request to the service, done properly: typed by the generated OpenAPI types, a fresh token on
// every attempt, the body gzip-compressed and checked against both size limits before it leaves,
// back-off on 429 (any request) and on 502, 503, 504, a lost connection or no answer in time
// (requests safe to repeat: every POST is, sent with one Idempotency-Key across its attempts), and
// on a 401 one new token and one more try of the same request (spec: Authentication 2). Every
// attempt has a timeout, the call an optional deadline, and the caller's AbortSignal stops it at
// once. Every attempt of a call sends the same X-Request-Id, which every error carries.
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { paths } from './generated/openapi.ts'
import { NetworkError, ServiceError, TimeoutError, UsageError, type ProblemDetails } from './errors.ts'
import { defaultLimits, type Limits } from './limits.ts'
import {
  causeOf,
  defaultRetryPolicy,
  delayBeforeRetry,
  isRetryable,
  unreachableAtFirstContact,
  type Contact,
  type Outcome,
  type RetryNotice,
  type RetryPolicy,
} from './retry.ts'
import {
  abortable,
  attemptSignal,
  DEFAULT_TIMEOUT_MS,
  sleep,
  timeoutOf,
  type RequestOptions,
} from './request-options.ts'
import { TokenSource, type Credentials } from './token.ts'
import { userAgent, type AppInfo } from './version.ts'

const gzip = promisify(gzipCallback)

/** The problem type of a 409 that means "the first request with this idempotency key is still running: ask again". */
const IN_PROGRESS_PROBLEM = '/problems/idempotency-key-in-progress'

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
export type Path = keyof paths
export type Operation<P extends Path, M extends Method> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never
/** The JSON body of a successful answer to the operation (undefined for 204). */
export type Success<O> = O extends { responses: infer R }
  ?
      | (200 extends keyof R ? JsonOf<R[200]> : never)
      | (201 extends keyof R ? JsonOf<R[201]> : never)
      | (204 extends keyof R ? undefined : never)
  : never
type PathParams<O> = O extends { parameters: { path: infer X } } ? X : never
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? Partial<Q> : never
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

export interface RequestArgs<O> extends RequestOptions {
  path?: PathParams<O>
  query?: QueryParams<O>
  body?: BodyOf<O>
  /** Safe to send again after a 502, 503 or 504, a lost connection or a timeout. GET, PUT, DELETE and POSTs sent with an idempotency key are. */
  idempotent?: boolean
  /** false: send no Idempotency-Key. A POST sends a fresh one unless it is `idempotent` already (uploads, uid-match). */
  idempotencyKey?: false
}

export interface UntypedArgs extends RequestOptions {
  path?: Record<string, string>
  query?: Record<string, unknown>
  body?: unknown
  /**
   * A body already encoded and checked against the limits, sent as it is: the bulk upload's NDJSON,
   * gzip-compressed (the default), or a NAT zip, compressed already and sent with no Content-Encoding.
   */
  encoded?: { bytes: Uint8Array; contentType: string; contentEncoding?: 'gzip' | 'identity' }
  idempotent?: boolean
  idempotencyKey?: false
  /** The Prefer header (RFC 7240): `respond-async` asks for 202 and a status to poll. */
  prefer?: string
}

export interface HttpOptions {
  /** The service root, e.g. https://vetrs.example.gov.au (no /vet-provider/v1). */
  baseUrl: string
  credentials: Credentials
  retry?: Partial<RetryPolicy>
  limits?: Partial<Limits>
  /** Longest wait for one attempt of a request, unless a call says otherwise (default 60 000 ms). */
  timeoutMs?: number
  /** Longest time for one call, its retries included, unless the call says otherwise (default: none). */
  deadlineMs?: number
  /** Your application, named in the User-Agent after the client's own name and version. */
  appInfo?: AppInfo
  /** Replaces the global fetch (for proxies, instrumentation). It is given the attempt's AbortSignal. */
  fetch?: typeof fetch
  /** Told before each wait (token requests included), so a caller can show or log it. */
  onRetry?: (notice: RetryNotice) => void
}

export class Http {
  readonly baseUrl: string
  readonly limits: Limits
  readonly retry: RetryPolicy
  readonly timeoutMs: number
  readonly deadlineMs: number | undefined
  readonly userAgent: string
  readonly tokens: TokenSource
  readonly #fetch: typeof fetch
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined
  /** Whether the service has answered yet (a refused connection before that is not retried); the token source shares it. */
  readonly #contact: Contact = { answered: false }

  constructor(options: HttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.limits = { ...defaultLimits, ...options.limits }
    this.retry = { ...defaultRetryPolicy, ...options.retry }
    this.timeoutMs = timeoutOf(options.timeoutMs, DEFAULT_TIMEOUT_MS)
    this.deadlineMs = options.deadlineMs === undefined ? undefined : timeoutOf(options.deadlineMs, options.deadlineMs)
    this.userAgent = userAgent(options.appInfo)
    this.#fetch = options.fetch ?? fetch
    this.#onRetry = options.onRetry
    this.tokens = new TokenSource(options.credentials, this.baseUrl, {
      fetch: this.#fetch,
      retry: this.retry,
      timeoutMs: this.timeoutMs,
      userAgent: this.userAgent,
      contact: this.#contact,
      ...(this.#onRetry ? { onRetry: this.#onRetry } : {}),
    })
  }

  /** Sends the operation and answers its parsed JSON body; a failure is a ServiceError or NetworkError. */
  send<P extends Path, M extends Method>(
    method: M,
    template: P,
    args: RequestArgs<Operation<P, M>> = {},
  ): Promise<Success<Operation<P, M>>> {
    return this.request(method, template, args as UntypedArgs) as Promise<Success<Operation<P, M>>>
  }

  /**
   * send() without the compile-time link to one generated operation, for callers that build the
   * path from a resource's segment and type their own signature from the generated types.
   */
  async request(method: Method, template: string, args: UntypedArgs = {}): Promise<unknown> {
    const { signal } = args
    signal?.throwIfAborted()
    const started = Date.now()
    const timeoutMs = timeoutOf(args.timeoutMs, this.timeoutMs)
    const deadlineMs = args.deadlineMs ?? this.deadlineMs
    if (deadlineMs !== undefined) timeoutOf(deadlineMs, deadlineMs) // checked as a timeout is
    const deadline = deadlineMs === undefined ? Number.POSITIVE_INFINITY : started + deadlineMs
    const path = fillPath(template, args.path) + queryString(args.query)
    const verb = method.toUpperCase()
    const body = args.encoded?.bytes ?? (args.body === undefined ? undefined : await this.encode(verb, path, args.body))
    const contentType = args.encoded?.contentType ?? 'application/json'
    // Every attempt of the call carries the same request id, and a POST not safe to repeat as it is
    // the same idempotency key: the service then answers a repeated POST with its first answer, so
    // any POST is safe to repeat. Uploads (create or replace by UID) and uid-match (a read) already
    // are, and go without one: a key costs the service two more writes per request.
    const requestId = randomUUID()
    const idempotencyKey =
      method === 'post' && args.idempotencyKey !== false && args.idempotent !== true ? randomUUID() : undefined
    const idempotent = args.idempotent ?? (method !== 'post' || idempotencyKey !== undefined)
    let renewedToken = false
    for (let attempt = 1; ; attempt++) {
      // The attempt's signal: the caller's, or the timer's after timeoutMs (or at the deadline); the token wait included.
      const attemptMs = Math.min(timeoutMs, Math.max(1, deadline - Date.now()))
      const timer = attemptSignal(signal, attemptMs)
      let outcome: Outcome
      let response: Response | undefined
      let token: string | undefined
      let text = ''
      try {
        token = await this.tokens.token(timer.signal)
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          accept: 'application/json, application/problem+json',
          'user-agent': this.userAgent,
          'x-request-id': requestId,
        }
        if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
        if (args.prefer) headers.prefer = args.prefer
        if (body) Object.assign(headers, { 'content-type': contentType })
        if (body && (args.encoded?.contentEncoding ?? 'gzip') === 'gzip') headers['content-encoding'] = 'gzip'
        response = await this.#fetch(`${this.baseUrl}${path}`, {
          method: verb,
          headers,
          signal: timer.signal,
          ...(body ? { body: body as Uint8Array<ArrayBuffer> } : {}),
        })
        this.#contact.answered = true
        outcome = { status: response.status, retryAfter: response.headers.get('retry-after') }
        // The answer is read inside the attempt's time too: a body that stalls is no answer.
        if (response.ok) text = await response.text()
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        // A token request the service refused (bad credentials) is the caller's answer, not a lost connection.
        if (error instanceof ServiceError || (error instanceof NetworkError && token === undefined)) throw error
        response = undefined
        outcome = {
          networkError: error,
          timedOut: timer.timedOut(),
          notSent: token === undefined,
          unreachableAtFirstContact: unreachableAtFirstContact(this.#contact, error),
        }
      } finally {
        timer.done()
      }
      if (response?.ok) return text ? JSON.parse(text) : undefined
      if (response?.status === 401 && !renewedToken && token) {
        await response.body?.cancel()
        this.tokens.invalidate(token)
        renewedToken = true
        attempt-- // the renewed-token try does not count against the retry budget
        continue
      }
      // A 409 is final, except the one saying the first request with this key is still running.
      let problem: ProblemDetails | undefined
      let inProgress = false
      if (response?.status === 409 && idempotencyKey) {
        problem = await this.#problemOf(response, signal, timeoutMs)
        inProgress = problem?.type?.endsWith(IN_PROGRESS_PROBLEM) === true
      }
      if (attempt < this.retry.maxAttempts && (inProgress || isRetryable(outcome, idempotent))) {
        const delayMs = delayBeforeRetry(attempt, this.retry, 'status' in outcome ? outcome.retryAfter : null)
        // No retry that the deadline would cut short: the last answer (or none) is the call's.
        if (Date.now() + delayMs < deadline) {
          if (problem === undefined) await response?.body?.cancel()
          this.#onRetry?.({ method: verb, path, attempt, delayMs, cause: causeOf(outcome) })
          await sleep(delayMs, signal)
          continue
        }
      }
      if (!response) {
        const { networkError, timedOut } = outcome as { networkError: unknown; timedOut?: boolean }
        throw timedOut
          ? new TimeoutError(verb, path, attemptMs, networkError, requestId)
          : new NetworkError(verb, path, networkError, undefined, `${this.baseUrl}${path}`, requestId)
      }
      problem ??= await this.#problemOf(response, signal, timeoutMs)
      throw new ServiceError(
        verb,
        path,
        response.status,
        problem,
        response.headers.get('x-request-id') ?? problem?.traceId ?? requestId,
      )
    }
  }

  /**
   * A public document of the service (no token), e.g. /openapi.json: its JSON, or undefined when the
   * service answers anything but 2xx. A lost connection or timeout rejects (NetworkError), once.
   */
  async publicJson(path: string, options: RequestOptions = {}): Promise<unknown> {
    options.signal?.throwIfAborted()
    const timeoutMs = timeoutOf(options.timeoutMs, this.timeoutMs)
    const timer = attemptSignal(options.signal, timeoutMs)
    try {
      const response = await this.#fetch(`${this.baseUrl}${path}`, {
        headers: { accept: 'application/json', 'user-agent': this.userAgent },
        signal: timer.signal,
      })
      this.#contact.answered = true
      if (!response.ok) {
        await response.body?.cancel()
        return undefined
      }
      return await response.json()
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      throw timer.timedOut()
        ? new TimeoutError('GET', path, timeoutMs, error)
        : new NetworkError('GET', path, error, undefined, `${this.baseUrl}${path}`)
    } finally {
      timer.done()
    }
  }

  /** The problem details of a refusal, read within the request's timeout; undefined when there are none. */
  async #problemOf(response: Response, signal: AbortSignal | undefined, timeoutMs: number) {
    const timer = attemptSignal(signal, timeoutMs)
    try {
      return (await abortable(readJson(response), timer.signal)) as ProblemDetails | undefined
    } catch {
      if (signal?.aborted) throw signal.reason
      await response.body?.cancel().catch(() => {})
      return undefined
    } finally {
      timer.done()
    }
  }

  /** The JSON body gzip-compressed, refused here if it would exceed either size limit. */
  async encode(verb: string, path: string, value: unknown): Promise<Uint8Array> {
    const json = Buffer.from(JSON.stringify(value))
    if (json.length > this.limits.decompressedBytes) {
      throw new UsageError(
        `${verb} ${path}: the body is ${json.length} bytes, above the ${this.limits.decompressedBytes}-byte decompressed limit`,
      )
    }
    const compressed = await gzip(json)
    if (compressed.length > this.limits.compressedBytes) {
      throw new UsageError(
        `${verb} ${path}: the body is ${compressed.length} bytes compressed, above the ${this.limits.compressedBytes}-byte limit`,
      )
    }
    return compressed
  }
}

/** Size of a value's body as sent: [decompressed, compressed] bytes. */
export async function sizeOf(value: unknown): Promise<[number, number]> {
  const json = Buffer.from(JSON.stringify(value))
  return [json.length, (await gzip(json)).length]
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text()
  return text ? JSON.parse(text) : undefined
}

function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name]
    if (value === undefined) throw new UsageError(`${template}: path parameter ${name} is missing`)
    return encodeURIComponent(String(value))
  })
}

/** A list value is sent as the parameter repeated (style form, explode true), as the OpenAPI description says. */
function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return ''
  const entries = Object.entries(query)
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => [key, item] as const))
    .filter(([, value]) => value !== undefined && value !== null)
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)]))}`
}
