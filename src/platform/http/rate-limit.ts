// Rate limiting per client id (spec: Errors 429), shared across processes through Redis when REDIS_URL
// is set. It runs right after authentication, so an authenticated request counts against its own
// client and nobody else's; unauthenticated requests (the token endpoint) count against their address,
// so nobody can spend another client's allowance by naming it. Answers 429 problem details with Retry-After; every limited response carries the IETF
// RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers). Health, metrics and
// documentation are exempt.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'

export interface RateLimitOptions {
  max: number
  windowSeconds: number
  redis: Redis | undefined
  /** Separates counters of unrelated deployments (and of tests) sharing one Redis. */
  namespace: string
}

export async function installRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  if (options.max === 0) return
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest', // a route-level hook: runs after the global authentication hook
    max: options.max,
    timeWindow: options.windowSeconds * 1000,
    nameSpace: `${options.namespace}:rate-limit:`,
    ...(options.redis ? { redis: options.redis } : {}),
    keyGenerator: (request) => `client:${clientKey(request)}`,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Rate limit of ${context.max} requests per ${options.windowSeconds} seconds exceeded; retry after ${context.after}.`), { statusCode: 429 }),
  })
  app.addHook('onSend', async (_request, reply) => {
    const limit = reply.getHeader('ratelimit-limit')
    if (limit === undefined) return
    reply.header('RateLimit', `limit=${limit}, remaining=${reply.getHeader('ratelimit-remaining')}, reset=${reply.getHeader('ratelimit-reset')}`)
    reply.header('RateLimit-Policy', `${limit};w=${options.windowSeconds}`)
    reply.removeHeader('ratelimit-limit')
    reply.removeHeader('ratelimit-remaining')
    reply.removeHeader('ratelimit-reset')
  })
}

function clientKey(request: FastifyRequest): string {
  return request.actor ? request.actor.clientId : `ip:${request.ip}`
}
