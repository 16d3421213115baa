// What log lines must not carry although it reaches the code that logs: credentials a client put in a
// query string (the service refuses them, but the request line still logs the URL), and the database
// client that pg attaches to its connection errors (user, host, backend process id and secret key).
import type { FastifyRequest } from 'fastify'

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
