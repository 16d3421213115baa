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
 * attaches the whole client to an idle connection's error): its name, message and code.
 */
export function errorSummary(error: unknown): { name: string; message: string; code?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const code = (error as { code?: unknown }).code
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) }
}
