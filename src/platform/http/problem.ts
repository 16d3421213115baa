// RFC 9457 problem details: the catalogue of problem types and their schema. Services throw the domain
// errors of src/domain/errors.ts and know nothing of HTTP; the error handler turns them into responses.
import Type, { type Static } from 'typebox'
import { CONFLICT_REASONS, DomainError, type ErrorExtensions, type ErrorKind } from '../../domain/errors.ts'
import { named } from './schema-names.ts'
import { StringEnum } from './types.ts'

/** Every kind of problem the service answers with. `type` URIs are /problems/<kind>, documented there. */
export const problemTypes = {
  'structural-validation': {
    status: 400,
    title: 'The request is not structurally valid',
    description:
      'A body, path or query value breaks the format rules (types, required fields, unknown properties, whitespace, dates, bounds). Every failure is listed in errors with its accessPath; for a bulk upload (application/x-ndjson), lines lists each refused line (the first 100) with its line number and failures, and refusedLineCount counts them all. Nothing was stored; correct the request and send it again.',
  },
  'malformed-http': {
    status: 400,
    title: 'The request is not valid HTTP',
    description:
      'The request line or headers could not be parsed (431 when the headers are too large). The connection is closed.',
  },
  'malformed-body': {
    status: 400,
    title: 'The request body cannot be decoded',
    description: 'The body does not match its Content-Encoding (for example, not valid gzip). Nothing was stored.',
  },
  'malformed-json': {
    status: 400,
    title: 'The request body is not valid JSON',
    description: 'The body could not be parsed as JSON. Nothing was stored.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type or content encoding',
    description: 'Send JSON (application/json) and, if compressed, Content-Encoding gzip, deflate or br.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description:
      'The access token is missing, malformed, expired or not valid for this service. Obtain a new token from /oauth2/token and retry the same request.',
  },
  'invalid-client': {
    status: 401,
    title: 'Client authentication failed',
    description: 'The client id or secret is wrong, or the client is disabled (RFC 6749 section 5.2 invalid_client).',
  },
  'invalid-grant-request': {
    status: 400,
    title: 'The token request is not valid',
    description:
      'Only grant_type=client_credentials is supported, with client_id and client_secret in the form body or HTTP Basic authentication.',
  },
  'insufficient-scope': {
    status: 403,
    title: 'The access token lacks the required scope',
    description: 'The client is not granted the scope this operation needs. Ask the data collector to grant it.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'The resource does not exist, or it belongs to another RTO.',
  },
  'no-validation-run': {
    status: 404,
    title: 'The batch has no validation run to answer this',
    description:
      'The transaction batch exists, but GET validate was asked before any validation was requested (or after the last request was cancelled), or failed-validation-results before a run completed. POST .../validate, then poll GET .../validate until validationStatus is Validated. An unknown batch is /problems/not-found instead.',
  },
  'no-assessment-run': {
    status: 404,
    title: 'The period has no completed data quality assessment',
    description:
      'failed-validation-results of a reporting period was asked before any assessment of it completed. POST .../validate, then poll GET .../validate until assessmentStatus is Validated (or Required after new data).',
  },
  conflict: {
    status: 409,
    title: 'The request conflicts with the current state',
    description:
      "The operation is not allowed in the resource's current state; reason names the condition (for example batch-submitted, validation-stale, blocking-validation-failures) and detail says what to do.",
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'The Idempotency-Key was used for another request',
    description:
      'A request sent with an Idempotency-Key that this client used in the last 24 hours for a request with a different method, path or body. Nothing was done. A retry sends the same key with exactly the same request; a new request needs a new key.',
  },
  'idempotency-key-in-progress': {
    status: 409,
    title: 'A request with this Idempotency-Key is in progress',
    description:
      "The first request sent with this Idempotency-Key is still being processed (or its process stopped and its claim has not lapsed yet). Nothing was done. Send the same request with the same key again after Retry-After seconds: it then gets the first request's answer.",
  },
  'request-timeout': {
    status: 408,
    title: 'The request did not arrive in time',
    description:
      'The request headers or body were not received within the configured time (HTTP_HEADERS_TIMEOUT_SECONDS, HTTP_REQUEST_TIMEOUT_SECONDS). Nothing was stored; the connection is closed. Send the request again.',
  },
  'payload-too-large': {
    status: 413,
    title: 'The decompressed request body is too large',
    description:
      'The body exceeds the decompressed size limit (business rule BRTS90400). Split the upload into smaller requests.',
  },
  'too-many-records': {
    status: 413,
    title: 'The request carries too many records',
    description:
      'A bulk upload (POST .../transaction-batch/{token}/records, application/x-ndjson) has more lines than one request may carry (LIMIT_BULK_RECORDS, 10,000 by default; the detail says the limit in force). Nothing was stored. Split the records over several requests.',
  },
  'nat-set-unreadable': {
    status: 400,
    title: 'The body is not a NAT file set that can be read',
    description:
      'A NAT import (POST .../nat-import, application/zip) whose body is empty, not a zip, a damaged zip (a file that does not match its size or CRC-32), holds no AVETMISS NAT file, or gives no record that could be read and mapped. Nothing was stored; the detail says which, and names the first NAT problems when there were lines to read.',
  },
  'nat-set-too-large': {
    status: 413,
    title: 'The NAT files hold too much',
    description:
      "A NAT import's zip whose NAT files hold more bytes uncompressed than one import may (LIMIT_NAT_FILES_BYTES, 48 MiB by default: about 150,000 activities; the detail says the limit in force), as the zip's directory states them, or that lists more than 10,000 entries. Refused before any file is inflated; nothing was stored. Split the set (by period) over several imports.",
  },
  'nat-organisation-mismatch': {
    status: 400,
    title: "The NAT files are another training organisation's",
    description:
      "A NAT import (POST .../nat-import) whose NAT00010, NAT00020, NAT00120 or NAT00130 lines give a training organisation identifier other than the caller's RTO: imported, they would add another organisation's students and activity to the RTO's held data. Refused before anything is stored; the detail names both codes and the first line of each file giving the other one. Import the files as the RTO they name, or correct the identifier in the student management system.",
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description:
      'The client exceeded its request rate. Wait for the number of seconds in Retry-After, then retry with back-off.',
  },
  'internal-error': {
    status: 500,
    title: 'Unexpected server error',
    description: 'Something failed on the server. The request may be retried; quote the traceId when reporting it.',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description:
      'The service is starting or shutting down, or cannot reach its database. Wait for the seconds in Retry-After, then retry with back-off.',
  },
} as const satisfies Record<ProblemKind, { status: number; title: string; description: string }>

/** Failures of the HTTP exchange itself, which only this layer can find: no service throws them. */
export type HttpErrorKind =
  | 'malformed-http'
  | 'malformed-body'
  | 'malformed-json'
  | 'unsupported-media-type'
  | 'idempotency-key-reused'
  | 'idempotency-key-in-progress'
  | 'request-timeout'
  | 'payload-too-large'
  | 'rate-limited'

/** Every kind of problem answered: the services' and the HTTP layer's. */
export type ProblemKind = ErrorKind | HttpErrorKind

/** Whether an error is a problem to answer (a service's DomainError or the HTTP layer's), with its kind typed. */
export const isProblem = (error: unknown): error is DomainError<ProblemKind> => error instanceof DomainError

/** A request the HTTP layer refuses before (or instead of) any service: thrown and answered like a DomainError. */
export class HttpRequestError extends DomainError<HttpErrorKind> {
  constructor(kind: HttpErrorKind, detail: string, extensions: ErrorExtensions = {}) {
    super(kind, detail, extensions)
    this.name = 'HttpRequestError'
  }
}

export const problemTypeUri = (kind: ProblemKind): string => `/problems/${kind}`

export const FieldError = named(
  'FieldError',
  Type.Object(
    {
      accessPath: Type.String({
        description: 'JSONPath-style path of the offending value, e.g. $.locations[0].deliveryLocationUID',
      }),
      message: Type.String(),
    },
    { description: 'one structural failure of a request' },
  ),
)
export type FieldError = Static<typeof FieldError>

export const RefusedLine = named(
  'RefusedLine',
  Type.Object(
    {
      line: Type.Integer({ minimum: 1, description: '1-based line number in the NDJSON body' }),
      resourceType: Type.Optional(Type.String({ description: "the line's resourceType, when it could be read" })),
      resourceUID: Type.Optional(
        Type.String({ description: "the record's own UID, when it could be read (any text: it may be what is wrong)" }),
      ),
      errors: Type.Array(FieldError, {
        description:
          'every structural failure of the line; access paths are into the line: $.record.familyName, $.resourceType, or $ for a line that is not a JSON object',
      }),
    },
    { description: 'one refused line of a bulk upload' },
  ),
)

export const ProblemDetails = named(
  'ProblemDetails',
  Type.Object(
    {
      type: Type.String({
        description: 'URI identifying the kind of problem; resolve it against the service base URL for documentation',
      }),
      title: Type.String(),
      status: Type.Integer(),
      detail: Type.Optional(Type.String()),
      instance: Type.Optional(Type.String({ description: 'the request path' })),
      traceId: Type.String({ description: 'request id, also in the X-Request-Id response header and the logs' }),
      errorNumber: Type.Optional(
        Type.String({ description: 'business rule code where the specification names one, e.g. BRTS90400' }),
      ),
      errors: Type.Optional(Type.Array(FieldError, { description: 'every structural failure, not only the first' })),
      lines: Type.Optional(
        Type.Array(RefusedLine, {
          description:
            'bulk upload (application/x-ndjson) only: the refused lines in line order, at most the first 100; nothing of the request was stored',
        }),
      ),
      lineCount: Type.Optional(Type.Integer({ description: 'bulk upload only: the lines (records) the body held' })),
      refusedLineCount: Type.Optional(
        Type.Integer({
          description: 'bulk upload only: how many lines were refused in all (lines lists the first 100)',
        }),
      ),
      droppedCount: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            'for a 409 nat-lines-dropped: how many NAT problems (lines not read or mapped, records refused) the import that made the batch left out; submit with acknowledgeDropped set to it to submit without them',
        }),
      ),
      reason: Type.Optional(
        StringEnum(CONFLICT_REASONS, {
          description:
            'for a 409, which condition failed, stable for programs to act on (e.g. batch-submitted, validation-stale, blocking-validation-failures); a new reason may be added in a minor version',
        }),
      ),
    },
    {
      additionalProperties: true,
      $id: 'ProblemDetails',
      description: 'RFC 9457 problem details (application/problem+json)',
    },
  ),
)
export type ProblemDetails = Static<typeof ProblemDetails>
