// Every request has an id: the caller's X-Request-Id when it is a sensible one, a fresh UUID otherwise.
// It is in every log line of the request and echoed on every answer, refusals included.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify'

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** Fastify's genReqId. */
export function requestIdOf(request: RawRequestDefaultExpression): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id)
  })
}
