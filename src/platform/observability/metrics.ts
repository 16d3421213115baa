// Prometheus metrics: requests by route and status, latency, queue depth, job outcomes, and statements
// and connections by database pool (primary, replica).
// /metrics is not an OAuth route: a scraper sends the operator's METRICS_TOKEN as a bearer token,
// compared in constant time. Production always requires it; development only when it is set.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config/config.ts'
import { bearerToken } from '../auth/authenticate.ts'
import { UnauthenticatedError } from '../../domain/errors.ts'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { JobOutcome } from '../queue/queue.ts'

export interface Metrics {
  registry: Registry
  observeJob(job: string, outcome: JobOutcome): void
  /** Supplies queue depth when /metrics is scraped. */
  setQueueDepthSource(source: () => Promise<Record<string, number>>): void
  /** Counts a statement Kysely ran on a pool (primary or replica), and whether it failed. */
  observeQuery(pool: DatabasePool, failed: boolean): void
  /** Supplies a pool's connection counts when /metrics is scraped (undefined: no pool, e.g. the embedded database). */
  addPoolSource(pool: DatabasePool, source: () => PoolCounts | undefined): void
}

/** Where a statement went: the primary's pool or the read replica's (DATABASE_READ_URL). */
export type DatabasePool = 'primary' | 'replica'
export interface PoolCounts {
  total: number
  idle: number
  waiting: number
}

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  let depthSource: (() => Promise<Record<string, number>>) | undefined
  const jobOutcomes = new Counter({
    name: 'vetrs_job_outcomes_total',
    help: 'Background jobs by queue and outcome',
    labelNames: ['job', 'outcome'],
    registers: [registry],
  })
  new Gauge({
    name: 'vetrs_queue_depth',
    help: 'Jobs waiting per queue',
    labelNames: ['job'],
    registers: [registry],
    async collect() {
      if (!depthSource) return
      for (const [job, depth] of Object.entries(await depthSource())) this.set({ job }, depth)
    },
  })
  const queries = new Counter({
    name: 'vetrs_db_queries_total',
    help: "Statements the service's code ran (the queue's own are not counted), by pool and outcome",
    labelNames: ['pool', 'outcome'],
    registers: [registry],
  })
  const poolSources = new Map<DatabasePool, () => PoolCounts | undefined>()
  new Gauge({
    name: 'vetrs_db_pool_connections',
    help: 'Connections of each database pool: total, idle, and requests waiting for one',
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      for (const [pool, source] of poolSources) {
        const counts = source()
        if (!counts) continue
        for (const state of ['total', 'idle', 'waiting'] as const) this.set({ pool, state }, counts[state])
      }
    },
  })
  return {
    registry,
    observeJob: (job, outcome) => jobOutcomes.inc({ job, outcome }),
    setQueueDepthSource: (source) => {
      depthSource = source
    },
    observeQuery: (pool, failed) => queries.inc({ pool, outcome: failed ? 'error' : 'ok' }),
    addPoolSource: (pool, source) => {
      poolSources.set(pool, source)
    },
  }
}

export function installRequestMetrics(app: FastifyInstance, metrics: Metrics, access: Config['metrics']): void {
  const requests = new Counter({
    name: 'vetrs_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [metrics.registry],
  })
  const latency = new Histogram({
    name: 'vetrs_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  })
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the concrete URL: tokens and UIDs would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched'
    requests.inc({ route, method: request.method, status: String(reply.statusCode) })
    latency.observe({ route, method: request.method }, reply.elapsedTime / 1000)
  })
  installMetricsRoute(app, metrics, access)
}

/** GET /metrics: the registry's metrics, behind METRICS_TOKEN (the API's app, and the worker's own listener). */
export function installMetricsRoute(app: FastifyInstance, metrics: Metrics, access: Config['metrics']): void {
  app.get(
    '/metrics',
    {
      config: { public: true, rateLimit: false }, // public to OAuth: guarded by METRICS_TOKEN below
      schema: { hide: true },
      onRequest: async (request) => {
        if (access.required && !sameSecret(bearerToken(request), access.token))
          throw new UnauthenticatedError('/metrics needs Authorization: Bearer <METRICS_TOKEN>.')
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  )
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
function sameSecret(given: string | undefined, expected: string | undefined): boolean {
  if (given === undefined || expected === undefined) return false
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(given), digest(expected))
}
