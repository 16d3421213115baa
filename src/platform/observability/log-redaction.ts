// What log lines must not carry although it reaches the code that logs: credentials a client put in a
// query string (the service refuses them, but the request line still logs the URL), and the database
// client that pg attaches to its connection errors (user, host, backend process id and secret key).
import type { FastifyRequest } from 'fastify'
import pino from 'pino'

/** Query parameters that carry credentials somewhere (OAuth, API keys); compared in lower case. */
const SECRET_QUERY_PARAMETERS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'client_secret',
  'client_assertion',
  'code',
  'password',
  'secret',
  'api_key',
  'apikey',
])

const REDACTED = '[REDACTED]'

/** The URL with the values of credential-like query parameters replaced; path and other parameters as sent. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?')
  if (queryStart < 0) return url
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=')
      const rawName = equals < 0 ? parameter : parameter.slice(0, equals)
      return SECRET_QUERY_PARAMETERS.has(decodedName(rawName).toLowerCase()) ? `${rawName}=${REDACTED}` : parameter
    })
  return `${url.slice(0, queryStart)}?${query.join('&')}`
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    return raw
  }
}

/** Fastify's request serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

/**
 * Only what identifies an error whose other properties may hold connection internals (pg-pool
 * attaches the whole client to an idle connection's error): its name, message and code. pg-boss
 * reports some errors as plain copies ({ ...error, message, stack }), and a connection to several
 * addresses fails with an AggregateError whose own message is empty: both still give their message and
 * code, never "[object Object]".
 */
export function errorSummary(error: unknown): { name: string; message: string; code?: string } {
  if (typeof error !== 'object' || error === null) return { name: 'Error', message: String(error) }
  const fields = error as { name?: unknown; message?: unknown; code?: unknown; errors?: unknown }
  const inner = Array.isArray(fields.errors) && fields.errors.length > 0 ? errorSummary(fields.errors[0]) : undefined
  const name = typeof fields.name === 'string' ? fields.name : error instanceof Error ? error.name : 'Error'
  const message = typeof fields.message === 'string' && fields.message !== '' ? fields.message : inner?.message
  const code = typeof fields.code === 'string' ? fields.code : inner?.code
  return { name, message: message ?? 'no message', ...(code === undefined ? {} : { code }) }
}

/**
 * Properties database drivers attach to their errors that carry the values a statement was given or
 * met: PGlite adds the statement's `params` (and `queryOptions`); PostgreSQL's `detail` quotes the
 * row ("Key (...)=(...) already exists"), `where` and `internalQuery` the context; pg-pool's `client`
 * holds the connection's user, host and secret key. Student names, USIs and birth dates travel as
 * parameters, so none of these is ever logged. The statement's text is kept: it is parameterised.
 */
const UNLOGGED_ERROR_FIELDS = ['params', 'parameters', 'queryOptions', 'detail', 'where', 'internalQuery', 'client']

/** pino's error serializer, without the fields above, at any depth of `cause`; other values only lose those fields. */
export function serializeError(error: unknown): unknown {
  // A summary already made (errorSummary's name, message and code) stays as it is: pino's serializer
  // would take it for an error and add a type and an empty stack.
  const serialized = error instanceof Error ? (pino.stdSerializers.err(error) as unknown) : error
  return withoutUnloggedFields(serialized, 0)
}

function withoutUnloggedFields(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 5) return value
  const kept: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(value)) {
    if (UNLOGGED_ERROR_FIELDS.includes(name)) continue
    kept[name] = name === 'cause' || name === 'aggregateErrors' ? withoutUnloggedFields(field, depth + 1) : field
  }
  return kept
}
