// One place maps every failure to an RFC 9457 response. Bodies never carry stack traces; 5xx details
// stay in the logs under the request id.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InsufficientScopeError } from '../../domain/errors.ts'
import { problemTypes, problemTypeUri, type ProblemDetails, type ProblemKind, isProblem } from './problem.ts'
import { WireBodyTooLargeError } from './body-limits.ts'
import { isDatabaseUnavailable } from '../db/availability.ts'

/** Seconds a client is asked to wait when the database cannot be reached: a restart or failover takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2

/** The router's own refusals (bad percent-encoding, an overlong path segment), as problem details. */
export function answerRouterError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // The path is not echoed back: it is what was wrong, and it may be very long. No hook runs for
  // these, so the headers every response carries are set here.
  const extensions = { instance: undefined }
  reply
    .header('x-request-id', String(request.id))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendProblem(
        request,
        reply,
        'structural-validation',
        'The request path is not valid percent-encoded UTF-8.',
        { ...extensions, errors: [{ accessPath: 'path', message: 'must be valid percent-encoded UTF-8' }] },
      )
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendProblem(
        request,
        reply,
        'structural-validation',
        `A path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters.`,
        {
          ...extensions,
          errors: [
            { accessPath: 'path', message: `parameters must be at most ${MAX_PATH_PARAMETER_LENGTH} characters` },
          ],
        },
      )
    default:
      request.log.error({ err: error }, 'unexpected router error')
      return sendProblem(
        request,
        reply,
        'internal-error',
        'An unexpected error occurred; the request id identifies it in the service logs.',
        extensions,
      )
  }
}

/** Longer than any identifier the API has (UIDs are 36 characters, batch tokens 32). */
export const MAX_PATH_PARAMETER_LENGTH = 200

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  kind: ProblemKind,
  detail: string,
  extensions: Partial<ProblemDetails> = {},
): FastifyReply {
  const { status, title } = problemTypes[kind]
  const body: ProblemDetails = {
    type: problemTypeUri(kind),
    title,
    status,
    detail,
    instance: request.url.split('?')[0],
    traceId: String(request.id),
    ...extensions,
  }
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer')
  return reply.code(status).type('application/problem+json').send(body)
}

/** What the route takes: its schema's consumes (the bulk upload: application/x-ndjson), JSON otherwise. */
function mediaTypesOf(request: FastifyRequest): string {
  const consumes = (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes
  return consumes && consumes.length > 0 ? consumes.join(' or ') : 'application/json'
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 'not-found', `No operation ${request.method} ${request.url.split('?')[0]}.`),
  )

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof WireBodyTooLargeError) {
      // Protocol-level rejection: no problem body (spec: Limits), and the rest of the body is not read.
      return reply.code(413).header('Connection', 'close').send()
    }
    if (error instanceof InsufficientScopeError) {
      reply.header('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${error.scope}"`)
      return sendProblem(request, reply, error.kind, error.message)
    }
    if (isProblem(error)) {
      return sendProblem(request, reply, error.kind, error.message, error.extensions)
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(
          request,
          reply,
          'unsupported-media-type',
          `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send ${mediaTypesOf(request)}.`,
        )
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(request, reply, 'malformed-json', 'The body is empty; send a JSON document.')
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(request, reply, 'malformed-json', 'The body is not valid JSON.')
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(request, reply, 'payload-too-large', 'The decompressed request body is too large.', {
          errorNumber: 'BRTS90400',
        })
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(request, reply, 'malformed-json', 'The body length does not match Content-Length.')
    }
    if ((error as { bodyDecodingFailed?: boolean }).bodyDecodingFailed) {
      return sendProblem(
        request,
        reply,
        'malformed-body',
        `The body could not be decoded as ${request.headers['content-encoding']}.`,
      )
    }
    if (error.statusCode === 429) return sendProblem(request, reply, 'rate-limited', error.message)
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return sendProblem(request, reply, 'malformed-json', 'The body is not valid JSON.')
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.warn({ err: error }, 'client error without a problem kind')
      return sendProblem(request, reply, 'structural-validation', error.message)
    }
    if (isDatabaseUnavailable(error)) {
      // Not the request's fault and not a bug: the same request may succeed in a moment.
      request.log.warn({ err: error }, 'database unreachable')
      reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
      return sendProblem(request, reply, 'service-unavailable', 'The database cannot be reached; retry shortly.')
    }
    request.log.error({ err: error }, 'unexpected error')
    return sendProblem(
      request,
      reply,
      'internal-error',
      'An unexpected error occurred; the request id identifies it in the service logs.',
    )
  })
}
