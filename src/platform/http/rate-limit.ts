// Rate limiting per client id (spec: Errors 429), shared across processes through Redis when REDIS_URL
// is set. Authentication calls it once the caller is identified and before any refusal, so an
// authenticated request counts against its own client and nobody else's; every other request (the
// token endpoint, no token or a token found wanting, unknown paths) counts against its address, so
// nobody can spend another client's allowance by naming it and refused requests are not free. Answers 429 problem details with Retry-After; every limited response carries the IETF
// RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers). Health, metrics and
// documentation are exempt. When Redis cannot be reached, limiting fails open: requests pass, unlimited,
// until it is back (an outage of the counters must not become an outage of the service).
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/** Longest a request waits for Redis to answer before it passes uncounted. */
const REDIS_COMMAND_TIMEOUT_MS = 500
/** Longest start-up waits for the first connection, so the first requests are counted. */
const REDIS_FIRST_CONNECT_MS = 1000

/**
 * The Redis client for shared counters, set up to fail fast: no queue of commands waiting for a
 * connection, one try per command, a bounded wait for an answer. An outage is logged when it begins
 * and when it ends, not once per request or per reconnection attempt.
 */
export async function connectRateLimitRedis(url: string, logger: Pick<Logger, 'warn' | 'info'>): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  })
  let reachable: boolean | undefined
  const lost = (error?: Error) => {
    if (reachable !== false)
      logger.warn(
        error ? { err: error } : {},
        'Redis unreachable: rate limiting lets every request through until it is back',
      )
    reachable = false
  }
  // A failed connection attempt is an 'error'; a connection the server closed is 'reconnecting' (not
  // always with an error), and requests are let through from that moment.
  redis.on('error', lost).on('reconnecting', () => lost())
  redis.on('ready', () => {
    if (reachable === false) logger.info('Redis reachable again: rate limiting resumes')
    reachable = true
  })
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, REDIS_FIRST_CONNECT_MS)
    const settle = () => {
      clearTimeout(timer)
      resolve()
    }
    redis.once('ready', settle).once('error', settle)
  })
  return redis
}

export interface RateLimitOptions {
  max: number
  windowSeconds: number
  redis: Redis | undefined
  /** Separates counters of unrelated deployments (and of tests) sharing one Redis. */
  namespace: string
}

/**
 * Registers the counters and the RateLimit response fields; returns the check that authentication
 * calls for every request not exempt (undefined when limiting is off).
 */
export async function installRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined> {
  if (options.max === 0) return undefined
  await app.register(rateLimit, {
    global: false, // no hook of its own on each route: authentication calls the check (below)
    max: options.max,
    timeWindow: options.windowSeconds * 1000,
    nameSpace: `${options.namespace}:rate-limit:`,
    ...(options.redis ? { redis: options.redis } : {}),
    skipOnError: true, // a counter that cannot be read or written lets the request through
    keyGenerator: (request) => `client:${clientKey(request)}`,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(
          `Rate limit of ${context.max} requests per ${options.windowSeconds} seconds exceeded; retry after ${context.after}.`,
        ),
        { statusCode: 429 },
      ),
  })
  app.addHook('onSend', async (_request, reply) => {
    const limit = reply.getHeader('ratelimit-limit')
    if (limit === undefined) return
    reply.header(
      'RateLimit',
      `limit=${limit}, remaining=${reply.getHeader('ratelimit-remaining')}, reset=${reply.getHeader('ratelimit-reset')}`,
    )
    reply.header('RateLimit-Policy', `${limit};w=${options.windowSeconds}`)
    reply.removeHeader('ratelimit-limit')
    reply.removeHeader('ratelimit-remaining')
    reply.removeHeader('ratelimit-reset')
  })
  const check = app.rateLimit()
  return async (request, reply) => {
    await check.call(app, request, reply)
  }
}

function clientKey(request: FastifyRequest): string {
  return request.actor ? request.actor.clientId : `ip:${request.ip}`
}
