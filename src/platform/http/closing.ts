// Shutting down: once closing begins, a request that still arrives (on a kept-alive connection) is
// answered 503 problem details with Retry-After and Connection: close, while requests in flight finish.
// Fastify's own 503 on closing is switched off (return503OnClosing: false) in favour of this one.
import type { FastifyInstance } from 'fastify'
import { DomainError } from '../../domain/errors.ts'

/** Returns what begins closing: call it before closing the HTTP server. */
export function installClosingRefusal(app: FastifyInstance): () => void {
  let closing = false
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      reply.header('Connection', 'close').header('Retry-After', '5')
      throw new DomainError('service-unavailable', 'The service is shutting down; retry shortly.')
    }
  })
  return () => {
    closing = true
  }
}
