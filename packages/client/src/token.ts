// OAuth 2.0 client credentials (spec: Authentication). The token is fetched once, cached, and fetched
// again shortly before it expires or when the service says it is no longer valid (a 401).
import { NetworkError, ServiceError, type ProblemDetails } from './errors.ts'
import { defaultRetryPolicy, delayBeforeRetry, isRetryable, sleep, type Outcome, type RetryPolicy } from './retry.ts'
import type { RetryNotice } from './http.ts'

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

export class TokenSource {
  readonly #credentials: Credentials
  readonly #tokenUrl: string
  readonly #fetch: typeof fetch
  readonly #retry: RetryPolicy
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined
  #current: { token: string; refreshAt: number } | undefined
  #pending: Promise<string> | undefined

  constructor(
    credentials: Credentials,
    baseUrl: string,
    fetchImpl: typeof fetch = fetch,
    retry: RetryPolicy = defaultRetryPolicy,
    onRetry?: (notice: RetryNotice) => void,
  ) {
    this.#credentials = credentials
    this.#tokenUrl = credentials.tokenUrl ?? `${baseUrl}/oauth2/token`
    this.#fetch = fetchImpl
    this.#retry = retry
    this.#onRetry = onRetry
  }

  /** A token valid for a while yet; concurrent callers share one token request. */
  async token(): Promise<string> {
    if (this.#current && Date.now() < this.#current.refreshAt) return this.#current.token
    this.#pending ??= this.#obtain().finally(() => {
      this.#pending = undefined
    })
    return this.#pending
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
    let response: Response | undefined
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome
      try {
        response = await this.#fetch(this.#tokenUrl, { method: 'POST', body: form })
        outcome = { status: response.status, retryAfter: response.headers.get('retry-after') }
      } catch (error) {
        response = undefined
        outcome = { networkError: error }
      }
      if (attempt >= this.#retry.maxAttempts || !isRetryable(outcome, true)) {
        if (!response)
          throw new NetworkError('POST', this.#tokenUrl, (outcome as { networkError: unknown }).networkError)
        break
      }
      await response?.body?.cancel()
      // A 503 here is the service unable to reach its database for the moment (Retry-After says how long).
      const delayMs = delayBeforeRetry(attempt, this.#retry, 'status' in outcome ? outcome.retryAfter : null)
      this.#onRetry?.({
        method: 'POST',
        path: this.#tokenUrl,
        attempt,
        delayMs,
        cause: 'status' in outcome ? outcome.status : 'network',
      })
      await sleep(delayMs)
    }
    const text = await response.text()
    if (!response.ok)
      throw new ServiceError('POST', this.#tokenUrl, response.status, parse(text) as ProblemDetails | undefined)
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
