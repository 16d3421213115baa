// The failures services throw: each names a kind of problem and says what to do, and none knows HTTP.
// platform/http maps every kind to its status, title and documentation (problem.ts) and turns a
// DomainError into RFC 9457 problem details (error-handler.ts).

/**
 * Every kind of failure the services report; each is one /problems/<kind> type. Failures of the HTTP
 * exchange itself (a malformed request, a body too large, a rate limit, an idempotency key) are
 * platform/http's own kinds (HttpErrorKind in problem.ts): no service can cause them.
 */
export type ErrorKind =
  | 'structural-validation'
  | 'unauthenticated'
  | 'invalid-client'
  | 'invalid-grant-request'
  | 'insufficient-scope'
  | 'not-found'
  | 'no-validation-run'
  | 'no-assessment-run'
  | 'conflict'
  | 'too-many-records'
  | 'nat-set-unreadable'
  | 'nat-set-too-large'
  | 'nat-organisation-mismatch'
  | 'internal-error'
  | 'service-unavailable'

/**
 * Every `reason` a 409 names, stable for programs to act on. ConflictError takes only these, and the
 * OpenAPI ProblemDetails schema (platform/http/problem.ts) publishes them as an enum (so generated clients get the union).
 */
export const CONFLICT_REASONS = [
  'batch-submitted',
  'validation-not-requested',
  'validation-pending',
  'validation-stale',
  'blocking-validation-failures',
  'no-pending-validation',
  'assessment-in-progress',
  'no-pending-assessment',
  'assessment-not-requested',
  'assessment-not-validated',
  'blocking-assessment-outcomes',
  'reportable-activity-held',
  'nat-lines-dropped',
] as const
export type ConflictReason = (typeof CONFLICT_REASONS)[number]

/** One structural failure of a request: where (a JSONPath-style access path) and what is wrong. */
export interface FieldError {
  accessPath: string
  message: string
}

/**
 * One refused line of a bulk upload (POST .../records, NDJSON): its 1-based line number in the body,
 * what it names as far as it could be read, and each structural failure with an access path into the
 * line (`$.record.familyName`, `$.resourceType`, `$` for a line that is not a JSON object).
 */
export interface LineFailure {
  line: number
  resourceType?: string
  resourceUID?: string
  errors: FieldError[]
}

/**
 * What a failure may say besides its detail: every structural failure, a rule's code, a conflict's
 * reason, and for a bulk upload the refused lines (the first ones) with the counts.
 */
export interface ErrorExtensions {
  errors?: FieldError[]
  errorNumber?: string
  reason?: ConflictReason
  lines?: LineFailure[]
  lineCount?: number
  refusedLineCount?: number
  /** nat-lines-dropped: the NAT problems the batch's import left out, the number submit's acknowledgeDropped must give. */
  droppedCount?: number
}

/**
 * A failure the caller can act on. Carries a kind of problem; never an HTTP object. The kind is a
 * service's (ErrorKind) unless a layer that adds kinds of its own says otherwise (platform/http).
 */
export class DomainError<Kind extends string = ErrorKind> extends Error {
  readonly kind: Kind
  readonly extensions: ErrorExtensions
  constructor(kind: Kind, detail: string, extensions: ErrorExtensions = {}) {
    super(detail)
    this.name = 'DomainError'
    this.kind = kind
    this.extensions = extensions
  }
}

export class NotFoundError extends DomainError {
  constructor(detail: string) {
    super('not-found', detail)
  }
}

export class ConflictError extends DomainError {
  readonly reason: ConflictReason
  constructor(reason: ConflictReason, detail: string, extensions: Omit<ErrorExtensions, 'reason'> = {}) {
    super('conflict', detail, { ...extensions, reason })
    this.reason = reason
  }
}

export class StructuralError extends DomainError {
  constructor(
    errors: FieldError[],
    detail = `${errors.length} structural ${errors.length === 1 ? 'failure' : 'failures'}; nothing was stored.`,
  ) {
    super('structural-validation', detail, { errors })
  }
}

/**
 * A bulk upload with refused lines: nothing of the request is stored. `refused` is the refused lines
 * to list (the route lists the first 100), `refusedLineCount` how many there were in all.
 */
export class RefusedLinesError extends DomainError {
  constructor(refused: LineFailure[], refusedLineCount: number, lineCount: number) {
    const first = refused[0]
    const example = first?.errors[0]
      ? ` Line ${first.line}: ${first.errors[0].accessPath} ${first.errors[0].message}.`
      : ''
    super(
      'structural-validation',
      `${refusedLineCount} of ${lineCount} ${lineCount === 1 ? 'line' : 'lines'} refused; nothing was stored.${example}`,
      { lines: refused, lineCount, refusedLineCount },
    )
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(detail = 'A valid bearer access token is required.') {
    super('unauthenticated', detail)
  }
}

export class InsufficientScopeError extends DomainError {
  readonly scope: string
  constructor(scope: string) {
    super('insufficient-scope', `This operation needs the scope ${scope}.`)
    this.scope = scope
  }
}
