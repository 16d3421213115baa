// Typed failures. A caller catches VetrsError, or one of its kinds, and reads what the service said.
// A call stopped by the caller's own AbortSignal rejects with the signal's reason instead, untouched.
import type { components } from './generated/openapi.ts'

/** RFC 9457 problem details as the service sends them (the ProblemDetails schema of the OpenAPI description). */
export type ProblemDetails = components['schemas']['ProblemDetails']

/**
 * Why the service refused a request with 409, as `ServiceError.reason` (and `problem.reason`) names
 * it. The union is the OpenAPI description's enum; the constant names each value, so
 * `error.reason === ConflictReason.ValidationStale` reads as what it checks. The service may add
 * a reason in a minor version: an older client then sees a string outside this union.
 */
export type ConflictReason = NonNullable<ProblemDetails['reason']>
export const ConflictReason = {
  /** The batch is submitted (or discarded): its records and validation can no longer change. Create a new batch. */
  BatchSubmitted: 'batch-submitted',
  /** Submit before any validation was requested. */
  ValidationNotRequested: 'validation-not-requested',
  /** Submit while the latest validation is Queued or InProgress. */
  ValidationPending: 'validation-pending',
  /** Submit after records changed since the latest validation started: validate again. */
  ValidationStale: 'validation-stale',
  /** Submit while the latest validation has blocking (Error) results. */
  BlockingValidationFailures: 'blocking-validation-failures',
  /** Cancel a validation when none is Queued or InProgress. */
  NoPendingValidation: 'no-pending-validation',
  /** Request an assessment while one of the period is Queued or In Progress. */
  AssessmentInProgress: 'assessment-in-progress',
  /** Cancel an assessment when none is Queued or In Progress. */
  NoPendingAssessment: 'no-pending-assessment',
  /** Declare before any data quality assessment of the period. */
  AssessmentNotRequested: 'assessment-not-requested',
  /** Declare while the period's assessment is not Validated. */
  AssessmentNotValidated: 'assessment-not-validated',
  /** Declare while the period's assessment has blocking (Error) outcomes. */
  BlockingAssessmentOutcomes: 'blocking-assessment-outcomes',
  /** A Nil_activity_report while enrolments with activity in the period are held. */
  ReportableActivityHeld: 'reportable-activity-held',
  /**
   * Submit a batch whose NAT import left NAT problems out (lines not read or mapped) without
   * acknowledging their number: `problem.droppedCount` is it; `submitBatch(..., { acknowledgeDropped })`.
   */
  NatLinesDropped: 'nat-lines-dropped',
} as const satisfies { [Reason in ConflictReason as PascalCase<Reason>]: Reason }
// (satisfies: one name per reason the service lists, so a new reason fails to compile until it is named here)

type PascalCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalCase<Tail>}`
  : Capitalize<S>

export class VetrsError extends Error {
  override readonly name: string = 'VetrsError'
}

/** The service answered with an error status. `problem` is its problem details, when it sent some. */
export class ServiceError extends VetrsError {
  override readonly name: string = 'ServiceError'
  readonly status: number
  readonly method: string
  readonly path: string
  readonly problem: ProblemDetails | undefined
  /**
   * The request id the service logged the request under (its X-Request-Id answer header, else the
   * problem's traceId, else the one the client sent): quote it when asking the data collector.
   */
  readonly requestId: string | undefined
  constructor(
    method: string,
    path: string,
    status: number,
    problem: ProblemDetails | undefined,
    requestId?: string | undefined,
  ) {
    // A detail that only repeats the title ("Client authentication failed.") is said once.
    const repeats = (detail: string, title: string) =>
      detail.replace(/\.$/, '').trim() === title.replace(/\.$/, '').trim()
    const what = problem
      ? `${problem.title}${problem.detail && !repeats(problem.detail, problem.title) ? `: ${problem.detail}` : ''}`
      : 'no problem details (a protocol-level refusal)'
    const id = requestId ?? problem?.traceId
    super(`${method} ${path} answered ${status}: ${what}`)
    this.status = status
    this.method = method
    this.path = path
    this.problem = problem
    this.requestId = id
  }

  /** Which condition a 409 names (see ConflictReason); undefined for other answers. */
  get reason(): ConflictReason | undefined {
    return this.problem?.reason
  }
}

/** A record of a bulk upload that the service refused, with where it was in the records given. */
export interface RefusedRecord {
  /** Index of the record in the array given to uploadMany (or submit). */
  index: number
  resourceType?: string
  resourceUID?: string
  /** Every structural failure; access paths are into the NDJSON line: $.record.familyName. */
  errors: { accessPath: string; message: string }[]
}

/**
 * A bulk upload request refused line by line (400): nothing of that request was stored. The
 * requests before it were stored (the first `stored` records given); none after it was sent.
 */
export class BulkUploadError extends ServiceError {
  override readonly name: string = 'BulkUploadError'
  /**
   * Records stored by the earlier requests of the same call: the first `stored` records given. Requests
   * after the refused one that were in flight alongside it may have stored theirs too; sending those
   * records again replaces them with the same.
   */
  readonly stored: number
  /** The refused records the service listed (at most its first 100 of the request), with their index. */
  readonly refused: RefusedRecord[]
  /** How many records of the refused request were refused in all. */
  readonly refusedCount: number
  constructor(refusal: ServiceError, firstIndex: number, stored: number) {
    super(refusal.method, refusal.path, refusal.status, refusal.problem, refusal.requestId)
    this.stored = stored
    // The SDK writes one record per line and no empty lines: line n is the request's record n.
    this.refused = (refusal.problem?.lines ?? []).map(({ line, ...rest }) => ({
      index: firstIndex + line - 1,
      ...rest,
    }))
    this.refusedCount = refusal.problem?.refusedLineCount ?? this.refused.length
  }
}

/** A request that never got an answer: connection refused or reset, or no answer in time (TimeoutError). */
export class NetworkError extends VetrsError {
  override readonly name: string = 'NetworkError'
  /** The system's code for what happened to the connection, when it gave one: ECONNREFUSED, ENOTFOUND, ECONNRESET... */
  readonly code: string | undefined
  /** The X-Request-Id the client sent (every attempt of one call sends the same): the service logged it if the request arrived. */
  readonly requestId: string | undefined
  /**
   * @param url where the request went, absolute (`path` may be relative to the service root); its
   *   origin is what a refused connection names.
   */
  constructor(method: string, path: string, cause: unknown, message?: string, url: string = path, requestId?: string) {
    const code = networkErrorCode(cause)
    super(message ?? `${method} ${path} got no answer: ${describeNetworkFailure(cause, code, url)}`, { cause })
    this.code = code
    this.requestId = requestId
  }
}

/**
 * The system error code under a failed fetch (undici wraps it: TypeError "fetch failed", its cause
 * the socket's error, or an AggregateError of one per address tried), or undefined.
 */
export function networkErrorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown }
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code
  if (Array.isArray(errors) && errors.length > 0) return networkErrorCode(errors[0], depth + 1)
  return networkErrorCode(cause, depth + 1)
}

/** What happened, in words: "fetch failed" names nothing a person can act on. */
function describeNetworkFailure(cause: unknown, code: string | undefined, url: string): string {
  const origin = URL.canParse(url) ? new URL(url).origin : url
  switch (code) {
    case 'ECONNREFUSED':
      return `the connection to ${origin} was refused (nothing listens there)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${origin} was not found (${code})`
    case 'ECONNRESET':
      return `the connection to ${origin} was reset (ECONNRESET)`
    case 'ETIMEDOUT':
      return `the connection to ${origin} timed out (ETIMEDOUT)`
  }
  let innermost = cause
  while (innermost instanceof Error && innermost.cause instanceof Error) innermost = innermost.cause
  const message = innermost instanceof Error ? innermost.message : String(innermost)
  return code && !message.includes(code) ? `${message} (${code})` : message
}

/**
 * No answer within the request's timeoutMs, or none before the call's deadlineMs ran out (after the
 * retries, where the request is safe to repeat). `timeoutMs` is the limit that ran out.
 */
export class TimeoutError extends NetworkError {
  override readonly name: string = 'TimeoutError'
  readonly timeoutMs: number
  constructor(method: string, path: string, timeoutMs: number, cause?: unknown, requestId?: string) {
    super(method, path, cause, `${method} ${path} got no answer within ${timeoutMs} ms`, path, requestId)
    this.timeoutMs = timeoutMs
  }
}

/** The client refused to send a request: a body over the configured limits, an unrecognised record. */
export class UsageError extends VetrsError {
  override readonly name: string = 'UsageError'
}

/** A workflow stopped for a reason the service reported (blocking failures, a Fault), with what it found. */
export class WorkflowError<Detail = unknown> extends VetrsError {
  override readonly name: string = 'WorkflowError'
  readonly detail: Detail
  constructor(message: string, detail: Detail) {
    super(message)
    this.detail = detail
  }
}
