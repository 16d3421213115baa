// Typed failures. A caller catches VetrsError, or one of its kinds, and reads what the service said.

/** RFC 9457 problem details as the service sends them (see the Problem schema in the OpenAPI description). */
export interface ProblemDetails {
  type: string
  title: string
  status: number
  detail?: string
  instance?: string
  traceId?: string
  /** business rule code where the specification names one, e.g. BRTS90400 */
  errorNumber?: string
  /** every structural failure, with the access path of the offending value */
  errors?: { accessPath: string; message: string }[]
  /** for a 409: which condition failed (validation-stale, assessment-in-progress, ...) */
  reason?: string
  [key: string]: unknown
}

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
  constructor(method: string, path: string, status: number, problem: ProblemDetails | undefined) {
    const what = problem
      ? `${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`
      : 'no problem details (a protocol-level refusal)'
    super(`${method} ${path} answered ${status}: ${what}`)
    this.status = status
    this.method = method
    this.path = path
    this.problem = problem
  }

  /** The 409 reason, when the service gave one. */
  get reason(): string | undefined {
    return this.problem?.reason
  }
}

/** A request that never got an answer: connection refused or reset, timeout. */
export class NetworkError extends VetrsError {
  override readonly name: string = 'NetworkError'
  constructor(method: string, path: string, cause: unknown) {
    super(`${method} ${path} got no answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
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
