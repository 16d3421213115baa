// The worker process's own small HTTP listener (WORKER_METRICS_PORT): GET /metrics for the scraper
// (its jobs' outcomes, queue depth and database pools are the worker's, not any API process's) and
// GET /health/live for the orchestrator. No API route, no OAuth: /metrics is behind METRICS_TOKEN as
// on the API processes.
import Fastify, { type FastifyInstance } from 'fastify'
import type { Config } from '../../config/config.ts'
import { installMetricsRoute, type Metrics } from '../observability/metrics.ts'
import { installErrorHandling } from './error-handler.ts'

export async function startWorkerListener(
  metrics: Metrics,
  config: Pick<Config, 'metrics'> & { http: { host: string }; workerMetricsPort: number },
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false })
  installErrorHandling(app)
  installMetricsRoute(app, metrics, config.metrics)
  // Alive while the event loop turns; whether its jobs succeed is for the job metrics to tell.
  app.get('/health/live', async () => ({ status: 'ok' }))
  const url = await app.listen({ port: config.workerMetricsPort, host: config.http.host })
  return { app, url }
}
