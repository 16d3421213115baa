// OAuth 2.0 client credentials (spec: Authentication). The token is fetched once, cached, and fetched
// again shortly before it expires or when the service says it is no longer valid (a 401). Callers
// share one token request, so it is not stopped by any one caller's signal: each attempt has the
// client's timeout instead, and a caller stops waiting for it when its own signal aborts.
import { randomUUID } from 'node:crypto'
import { NetworkError, ServiceError, TimeoutError, type ProblemDetails } from './errors.ts'
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
import { abortable, attemptSignal, DEFAULT_TIMEOUT_MS, sleep } from './request-options.ts'

export interface Credentials {
  clientId: string
  clientSecret: string
  /** Space-separated scopes to ask for; all the client's scopes when left out. */
  scope?: string
  /** Token endpoint; `${baseUrl}/oauth2/token` by default. */
  tokenUrl?: string
}

/** Refresh this long before the token's stated expiry, so a request never leaves with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000

export interface TokenSourceOptions {
  fetch?: typeof fetch
  retry?: RetryPolicy
  onRetry?: (notice: RetryNotice) => void
  /** Longest wait for one attempt of the token request. */
  timeoutMs?: number
  userAgent?: string
  /** Shared with the client's other requests: whether the service has answered yet. */
  contact?: Contact
}

export class TokenSource {
  readonly #credentials: Credentials
  readonly #tokenUrl: string
  readonly #fetch: typeof fetch
  readonly #retry: RetryPolicy
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined
  readonly #timeoutMs: number
  readonly #userAgent: string | undefined
  readonly #contact: Contact
  #current: { token: string; refreshAt: number } | undefined
  #pending: Promise<string> | undefined

  constructor(credentials: Credentials, baseUrl: string, options: TokenSourceOptions = {}) {
    this.#credentials = credentials
    this.#tokenUrl = credentials.tokenUrl ?? `${baseUrl}/oauth2/token`
    this.#fetch = options.fetch ?? fetch
    this.#retry = options.retry ?? defaultRetryPolicy
    this.#onRetry = options.onRetry
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.#userAgent = options.userAgent
    this.#contact = options.contact ?? { answered: false }
  }

  /** A token valid for a while yet; concurrent callers share one token request, each stops waiting when its signal aborts. */
  async token(signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted()
    if (this.#current && Date.now() < this.#current.refreshAt) return this.#current.token
    this.#pending ??= this.#obtain().finally(() => {
      this.#pending = undefined
    })
    return abortable(this.#pending, signal)
  }

  /** Forget a token the service refused, unless a newer one already replaced it. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined
  }

  async #obtain(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.#credentials.clientId,
      client_secret: this.#credentials.clientSecret,
    })
    if (this.#credentials.scope) form.set('scope', this.#credentials.scope)
    // Issuing a token changes nothing on the service, so every failure worth retrying is retried.
    const requestId = randomUUID() // the same on every attempt, and on the error that ends them
    const headers: Record<string, string> = {
      'x-request-id': requestId,
      ...(this.#userAgent ? { 'user-agent': this.#userAgent } : {}),
    }
    let response: Response | undefined
    let text = ''
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome
      const timer = attemptSignal(undefined, this.#timeoutMs)
      try {
        response = await this.#fetch(this.#tokenUrl, { method: 'POST', headers, body: form, signal: timer.signal })
        this.#contact.answered = true
        outcome = { status: response.status, retryAfter: response.headers.get('retry-after') }
        if (attempt >= this.#retry.maxAttempts || !isRetryable(outcome, true)) text = await response.text()
      } catch (error) {
        response = undefined
        outcome = {
          networkError: error,
          timedOut: timer.timedOut(),
          unreachableAtFirstContact: unreachableAtFirstContact(this.#contact, error),
        }
      } finally {
        timer.done()
      }
      if (attempt >= this.#retry.maxAttempts || !isRetryable(outcome, true)) {
        if (!response) {
          const { networkError, timedOut } = outcome as { networkError: unknown; timedOut?: boolean }
          throw timedOut
            ? new TimeoutError('POST', this.#tokenUrl, this.#timeoutMs, networkError, requestId)
            : new NetworkError('POST', this.#tokenUrl, networkError, undefined, this.#tokenUrl, requestId)
        }
        break
      }
      await response?.body?.cancel()
      // A 503 here is the service unable to reach its database for the moment (Retry-After says how long).
      const delayMs = delayBeforeRetry(attempt, this.#retry, 'status' in outcome ? outcome.retryAfter : null)
      this.#onRetry?.({ method: 'POST', path: this.#tokenUrl, attempt, delayMs, cause: causeOf(outcome) })
      await sleep(delayMs)
    }
    if (!response.ok)
      throw new ServiceError(
        'POST',
        this.#tokenUrl,
        response.status,
        parse(text) as ProblemDetails | undefined,
        response.headers.get('x-request-id') ?? requestId,
      )
    const body = parse(text) as { access_token: string; expires_in: number }
    const lifetimeMs = body.expires_in * 1000
    // Short-lived tokens (tests, strict deployments) are refreshed at half their life instead.
    const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2)
    this.#current = { token: body.access_token, refreshAt: Date.now() + lifetimeMs - margin }
    return body.access_token
  }
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}
