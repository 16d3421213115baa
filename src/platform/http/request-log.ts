// One log line per request (issue 30): Fastify's default writes two ("incoming request" and "request
// completed"). This controller writes the one, when the answer has gone, with what both said: method,
// URL (credentials redacted), address, status and time. Polls (health checks, metrics scrapes) come
// every few seconds from orchestrators and scrapers: their line is at debug, every other at info.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

const POLLED_PATHS = ['/health/', '/metrics']

function isPoll(request: FastifyRequest): boolean {
  const path = request.routeOptions.url ?? ''
  return POLLED_PATHS.some((prefix) => path.startsWith(prefix))
}

/** Fastify's logController. */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      req: request,
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
      ...(error ? { err: error } : {}),
    }
    if (error) reply.log.error(line, 'request errored')
    else if (isPoll(request)) reply.log.debug(line, 'request completed')
    else reply.log.info(line, 'request completed')
  }
}
