// A request that is not even valid HTTP, or that did not arrive in time: answered as problem details
// by the HTTP server itself (no route is reached), and the connection closed. Fastify's
// clientErrorHandler.
import { randomUUID } from 'node:crypto'
import type { Duplex } from 'node:stream'
import { problemTypeUri, problemTypes, type ProblemKind } from './problem.ts'
import { RAW_RESPONSE_SECURITY_HEADERS } from './security-headers.ts'

export function answerMalformedHttp(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy()
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
  const [kind, status, reason, detail]: [ProblemKind, number, string, string] = timedOut
    ? [
        'request-timeout',
        408,
        'Request Timeout',
        'The request headers or body did not arrive in time; the connection is closed.',
      ]
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? ['malformed-http', 431, 'Request Header Fields Too Large', 'The request line or headers are too large.']
      : ['malformed-http', 400, 'Bad Request', 'The request is not valid HTTP/1.1.']
  const body = JSON.stringify({
    type: problemTypeUri(kind),
    title: problemTypes[kind].title,
    status,
    detail,
    traceId: randomUUID(),
  })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\n${RAW_RESPONSE_SECURITY_HEADERS}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}
