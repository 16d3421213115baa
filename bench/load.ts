// The load generator, run as a child process so that it never shares the servers' event loop.
// It receives one LoadRequest over IPC, runs autocannon for a fixed duration with a bounded number
// of connections (no pipelining), and answers one LoadResult. Every request carries a fresh UUID v4,
// so every request inserts a new row.
import { randomUUID } from 'node:crypto'
import autocannon from 'autocannon'

export interface LoadRequest {
  url: string
  headers: Record<string, string>
  /** The body, split around the placeholder of the record's UID. */
  bodyBefore: string
  bodyAfter: string
  connections: number
  seconds: number
}

export interface LoadResult {
  /** Successful (2xx) responses per second over the run. */
  requestsPerSecond: number
  /** 99th percentile latency of successful responses, in milliseconds (exact, not bucketed). */
  p99Ms: number
  p50Ms: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  durationSeconds: number
  statusCodes: Record<string, number>
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length) // nearest-rank
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

function runLoad(request: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = []
    const instance = autocannon(
      {
        url: request.url,
        connections: request.connections,
        pipelining: 1,
        duration: request.seconds,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...request.headers },
            setupRequest: (req) => ({ ...req, body: request.bodyBefore + randomUUID() + request.bodyAfter }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error)
        const sorted = Float64Array.from(latencies).sort()
        resolve({
          requestsPerSecond: result['2xx'] / result.duration,
          p99Ms: percentile(sorted, 99),
          p50Ms: percentile(sorted, 50),
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          durationSeconds: result.duration,
          statusCodes: Object.fromEntries(
            Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
          ),
        })
      },
    )
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
    })
  })
}

if (process.send) {
  process.once('message', (message) => {
    runLoad(message as LoadRequest).then(
      (result) => process.send!({ result }, () => process.disconnect()),
      (error: unknown) =>
        process.send!({ error: String(error instanceof Error ? error.stack : error) }, () => process.disconnect()),
    )
  })
}
