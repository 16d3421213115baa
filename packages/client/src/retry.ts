// When and how long to wait before trying a request again (spec: Errors, 429; Authentication 2).
// 429 is refused at protocol level before anything is processed, so any request may be sent again;
// 503, a lost connection, and a load balancer's 502 (its backend failed mid-request) or 504 (its
// backend did not answer in time) may follow processing, so only requests that are safe to repeat are.
import { networkErrorCode } from './errors.ts'

export interface RetryPolicy {
  /** Attempts in all, the first included (default 6). */
  maxAttempts: number
  /** Back-off before the second attempt, doubled each time (default 250 ms). */
  baseDelayMs: number
  /** Longest wait between attempts, also the cap on a Retry-After (default 30 s). */
  maxDelayMs: number
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30_000 }

/** What one attempt came to: an answer, or none (a lost connection, or no answer in time). */
export type Outcome =
  | { status: number; retryAfter: string | null }
  /**
   * notSent: the attempt ended before the request left (waiting for a token), so nothing can have happened.
   * unreachableAtFirstContact: the connection was refused (or the host unknown) and the service has never answered this client.
   */
  | { networkError: unknown; timedOut?: boolean; notSent?: boolean; unreachableAtFirstContact?: boolean }

/**
 * Whether the service has answered this client yet. A refused connection (or a host name that does
 * not resolve) before its first answer is a wrong URL or a service that is not running, which
 * waiting does not mend: it is not retried. Once the service has answered, a refused connection is
 * a restart, and is retried like a lost one.
 */
export interface Contact {
  answered: boolean
}

/** Whether a failed attempt was a refused connection (or an unknown host) to a service that has never answered. */
export function unreachableAtFirstContact(contact: Contact, error: unknown): boolean {
  if (contact.answered) return false
  const code = networkErrorCode(error)
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND'
}

/** Answers after which the request may or may not have been processed: as a lost connection. */
const AFTER_PROCESSING_MAYBE = new Set([502, 503, 504])

/**
 * Whether to try again after this outcome; never for 400, 404, 409, 413 or any other answer. No
 * answer in time is treated as a lost connection: the request may have been processed.
 */
export function isRetryable(outcome: Outcome, idempotent: boolean): boolean {
  if ('networkError' in outcome) return !outcome.unreachableAtFirstContact && (idempotent || outcome.notSent === true)
  if (outcome.status === 429) return true
  if (AFTER_PROCESSING_MAYBE.has(outcome.status)) return idempotent
  return false
}

/** Exponential back-off with full jitter; a Retry-After (seconds or HTTP date) is honoured as the least wait. */
export function delayBeforeRetry(
  attempt: number,
  policy: RetryPolicy,
  retryAfter: string | null,
  random = Math.random,
  now = Date.now(),
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  const jittered = Math.round(random() * ceiling)
  const asked = retryAfterMs(retryAfter, now)
  return asked === undefined ? jittered : Math.min(policy.maxDelayMs, Math.max(asked, jittered))
}

function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** What a RetryNotice names as the cause of a retry. */
export function causeOf(outcome: Outcome): number | 'network' | 'timeout' {
  if ('status' in outcome) return outcome.status
  return outcome.timedOut ? 'timeout' : 'network'
}

/** Told before each wait between attempts (a token request's included). */
export interface RetryNotice {
  method: string
  path: string
  attempt: number
  delayMs: number
  /** The status answered, 'network' for no answer at all, 'timeout' for none within timeoutMs. */
  cause: number | 'network' | 'timeout'
}
