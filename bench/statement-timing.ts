// What a page costs PostgreSQL, apart from the machine's load on Node: every statement the service sends
// while one request is captured (pg.Client's query, which the service's pool and its preparing client
// both go through), with the time from sending it to its answer; then each captured read explained with
// EXPLAIN (ANALYZE) for the server's own planning and execution time. pg_stat_statements is not loaded
// on the shared server (and may not be reconfigured), so this is the per-statement timing the benches use.
import pg from 'pg'

export interface CapturedStatement {
  text: string
  values: unknown[] | undefined
  /** Send to answer, as the service saw it (ms). */
  ms: number
}

let capturing: CapturedStatement[] | undefined

/** A statement the process sent while a log was on: its text's start, when it was sent and answered. */
export interface LoggedStatement {
  text: string
  /** performance.now() when sent and when answered. */
  sent: number
  answered: number
}

let logging: LoggedStatement[] | undefined

/** Logs every statement the process sends (the service's and its background loops') into `into`, until called with undefined. */
export function logStatements(into: LoggedStatement[] | undefined): void {
  logging = into
}

const original = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]): any {
  const result = (original as any).apply(this, args)
  const log = logging
  if (log && result && typeof result.then === 'function') {
    const first = args[0] as string | { text: string }
    const text = (typeof first === 'string' ? first : first.text).replace(/\s+/g, ' ').trim().slice(0, 120)
    const sent = performance.now()
    const done = () => log.push({ text, sent, answered: performance.now() })
    result.then(done, done)
  }
  const into = capturing
  if (into && result && typeof result.then === 'function') {
    const first = args[0] as string | { text: string; values?: unknown[] }
    const text = typeof first === 'string' ? first : first.text
    const values = (typeof first === 'string' ? args[1] : first.values) as unknown[] | undefined
    const started = performance.now()
    result.then(
      () => into.push({ text, values, ms: performance.now() - started }),
      () => into.push({ text, values, ms: performance.now() - started }),
    )
  }
  return result
}

/** Runs the request, returning the statements the service sent for it (in order of their answers). */
export async function capture(run: () => Promise<unknown>): Promise<CapturedStatement[]> {
  const statements: CapturedStatement[] = []
  capturing = statements
  try {
    await run()
  } finally {
    capturing = undefined
  }
  return statements
}

const READ = /^\s*(\/\*[^*]*\*\/\s*)?(select|with)\b/i
const WRITES = /\b(insert|update|delete)\b/i

/**
 * The server's planning and execution time of each read among the statements (EXPLAIN ANALYZE, run
 * again once on its own pool); writes (session renewals, job claims) count their send-to-answer time.
 */
export async function serverTime(
  databaseUrl: string,
  statements: CapturedStatement[],
): Promise<{ count: number; reads: number; serverMs: number; clientMs: number }> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  let serverMs = 0
  let reads = 0
  try {
    for (const statement of statements) {
      if (READ.test(statement.text) && !WRITES.test(statement.text)) {
        const result = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values)
        const plan = result.rows[0]['QUERY PLAN'][0] as {
          'Planning Time': number
          'Execution Time': number
        }
        serverMs += plan['Planning Time'] + plan['Execution Time']
        reads++
      } else serverMs += statement.ms
    }
  } finally {
    await client.end()
  }
  return {
    count: statements.length,
    reads,
    serverMs,
    clientMs: statements.reduce((sum, s) => sum + s.ms, 0),
  }
}
