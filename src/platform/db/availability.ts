// Whether an error means "the database cannot be reached right now" rather than "this request or this
// code is wrong". The one place that knows what such errors look like, so the error handler can answer
// 503 service-unavailable (retry later) instead of 500, and authentication can tell an outage from a
// bad token. Errors come from node-postgres, pg-pool and the sockets underneath, unwrapped by Kysely.

/** Socket errors: the server is down, unreachable, or cut the connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
])

/**
 * SQLSTATEs of a server that refuses or drops the connection: class 08 (connection exception), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovering),
 * 53300 too_many_connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300'])

/** node-postgres and pg-pool say these in their messages only; they carry no code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // covers "... unexpectedly" and "... due to connection timeout"
  'timeout exceeded when trying to connect', // pg-pool: no connection became free within connectionTimeoutMillis
  'is not queryable', // a client whose connection already failed, or a pool being closed
]

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false
  const code = (error as { code?: unknown }).code
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message))) return true
  // A connection attempt to several addresses fails with every address's error (AggregateError);
  // a timeout keeps the socket error as its cause.
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true
  return error.cause !== undefined && isDatabaseUnavailable(error.cause, depth + 1)
}
