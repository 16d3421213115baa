// Background work goes through pg-boss on the same database as the data, in both transports. A job is
// enqueued with the transaction that changes state, so the change and its job commit together or not
// at all. Delivery is at least once: every handler must be safe to run twice.
import { PgBoss, fromKysely, fromPglite, type Db as IDatabase, type Job } from 'pg-boss'
import type { Logger } from 'pino'
import { sql } from 'kysely'
import type { DatabaseHandle, Tx } from '../db/database.ts'
import { errorSummary } from '../observability/log-redaction.ts'
import { isDatabaseUnavailable } from '../db/availability.ts'

/** pg-boss's upper bound (24 hours) for how long a job may stay active, given to jobs with heartbeats. */
export const HEARTBEAT_JOB_EXPIRY_SECONDS = 24 * 60 * 60

export interface JobDefinition<Data extends object> {
  name: string
  /** Runs one job; must be idempotent (at-least-once delivery). */
  handle(data: Data, job: Job<Data>): Promise<void>
  retryLimit?: number
  /**
   * Long jobs send heartbeats while they run: when the worker dies mid-job the heartbeats stop and the
   * job is retried (after about the queue's heartbeat plus supervise interval) instead of staying active.
   */
  heartbeat?: boolean
  /**
   * The RTO a job works for, when it works for one: jobs of one RTO then run at most
   * QueueSettings.jobsPerRto at a time across every process (a pg-boss group), so that one RTO's
   * million-record validation leaves the other worker slots to everyone else's.
   */
  rtoOf?(data: Data): string
  /** Optional cron schedule (UTC) on which the queue enqueues the job itself. */
  schedule?: { cron: string; data: Data }
}

/** A job of any data type: the queue holds jobs of many kinds, and each checks its own data. */
// biome-ignore lint/suspicious/noExplicitAny: a list of jobs has a different Data per element
export type AnyJobDefinition = JobDefinition<any>

export interface Queue {
  /** Enqueues inside the caller's transaction: the job exists only if that transaction commits. */
  enqueue<Data extends object>(
    tx: Tx,
    job: JobDefinition<Data>,
    data: Data,
    options?: { singletonKey?: string },
  ): Promise<string | null>
  /** Starts polling for the registered jobs in this process. */
  startWorkers(): Promise<void>
  depth(): Promise<Record<string, number>>
  /** Each registered queue's jobs by state, counted now (for operators: the console's jobs page). */
  jobCounts(): Promise<QueueJobCounts[]>
  /** A queue's most recent failed jobs (retries exhausted), newest first; undefined for an unknown queue. */
  failedJobs(queue: string, limit: number): Promise<FailedJob[] | undefined>
  /**
   * Jobs running (active) for longer than `minutes`, longest first, across the registered queues; each
   * with the error of its previous attempt when it was retried (never its data).
   */
  slowJobs(minutes: number, limit: number): Promise<SlowJob[]>
  /** Queues a failed job again (pg-boss's retry); false when there is no such failed job. */
  retryFailed(queue: string, jobId: string): Promise<boolean>
  stop(): Promise<void>
}

export interface QueueJobCounts {
  queue: string
  /** Waiting to run (created). */
  queued: number
  /** Failed once or more and waiting for their next attempt. */
  retrying: number
  active: number
  /** Failed with every retry used, kept until pg-boss deletes them. */
  failed: number
}

export interface FailedJob {
  id: string
  queue: string
  createdAt: string
  failedAt: string | null
  attempts: number
  /** The error's message as the job recorded it (never its data or stack). */
  error: string
}

export interface SlowJob {
  id: string
  queue: string
  startedAt: string
  /** Whole minutes it has been running, when read. */
  runningMinutes: number
  attempts: number
  /** The previous attempt's error message, when it was retried; undefined otherwise. */
  previousError: string | undefined
}

export type JobOutcome = 'completed' | 'failed'

export interface QueueSettings {
  heartbeatSeconds: number
  superviseIntervalSeconds: number
  /** Jobs of one kind this process runs at once. */
  jobsPerQueue: number
  /** Jobs of one kind running at once for one RTO, across every process (jobs with rtoOf). */
  jobsPerRto: number
}

export async function createQueue(
  database: DatabaseHandle,
  jobs: AnyJobDefinition[],
  logger: Logger,
  observe: (job: string, outcome: JobOutcome) => void = () => {},
  settings: QueueSettings = { heartbeatSeconds: 30, superviseIntervalSeconds: 30, jobsPerQueue: 2, jobsPerRto: 1 },
): Promise<Queue> {
  // LISTEN/NOTIFY wakes a worker the moment a job commits (a validation should not wait out a poll);
  // polling stays on as the backstop.
  // The supervisor fails jobs whose heartbeats stopped, once per monitor pass: both intervals follow
  // the one setting.
  const supervision = {
    superviseIntervalSeconds: settings.superviseIntervalSeconds,
    monitorIntervalSeconds: settings.superviseIntervalSeconds,
    useListenNotify: true,
  }
  const boss = database.pglite
    ? new PgBoss({
        db: serialisedWithKysely(database, fromPglite(database.pglite)),
        backend: 'pglite',
        schema: 'pgboss',
        ...supervision,
      })
    : new PgBoss({ connectionString: connectionStringOf(database), schema: 'pgboss', max: 4, ...supervision })
  // Its errors include pool errors of idle connections, which carry the whole pg client: only their
  // name, code and message are logged, and an outage of the database once, not once per poll.
  const errors = reportQueueErrors(logger, () => sql`SELECT 1`.execute(database.db))
  boss.on('error', errors.onError)
  await boss.start()
  for (const job of jobs) {
    // A job that sends heartbeats is judged by them: pg-boss would also fail it after 15 minutes active
    // (its default expiry), whatever its heartbeats say, and retry it from the start, so a validation or
    // assessment longer than that (a million records on a busy machine) would never end. Such jobs get
    // pg-boss's longest expiry; a dead worker is still found by its silent heartbeats.
    const heartbeat = job.heartbeat
      ? { heartbeatSeconds: settings.heartbeatSeconds, expireInSeconds: HEARTBEAT_JOB_EXPIRY_SECONDS }
      : {}
    await boss.createQueue(job.name, {
      retryLimit: job.retryLimit ?? 5,
      retryBackoff: true,
      notify: true,
      ...heartbeat,
    })
    await boss.updateQueue(job.name, { notify: true, ...heartbeat }) // a queue created by an older release
    if (job.schedule) await boss.schedule(job.name, job.schedule.cron, job.schedule.data, { tz: 'UTC' })
    // pg-boss looks a queue up on first use and caches it. Do that now, outside any transaction: on
    // PGlite a look-up from inside a caller's transaction would wait for the connection that very
    // transaction holds. (The read of a job that cannot exist is the cheapest call that caches it.)
    await boss.getJobById(job.name, '00000000-0000-4000-8000-000000000000')
  }

  return {
    enqueue: (tx, job, data, options = {}) => {
      // An unregistered queue would be looked up through the connection the transaction holds (PGlite).
      if (!jobs.some((registered) => registered.name === job.name))
        throw new Error(`job ${job.name} is not registered with the queue`)
      const group = job.rtoOf ? { group: { id: job.rtoOf(data) } } : {}
      return boss.send(job.name, data, { ...options, ...group, db: fromKysely(tx) })
    },
    async startWorkers() {
      for (const job of jobs) {
        await boss.work(
          job.name,
          {
            pollingIntervalSeconds: 1,
            notifyPollingIntervalSeconds: 5,
            localConcurrency: settings.jobsPerQueue,
            ...(job.rtoOf ? { groupConcurrency: settings.jobsPerRto } : {}),
          },
          async (batch: Job<object>[]) => {
            for (const item of batch) {
              const log = logger.child({ job: job.name, jobId: item.id })
              log.debug('job started')
              try {
                await job.handle(item.data, item)
                log.info('job completed')
                observe(job.name, 'completed')
              } catch (error) {
                log.error({ err: error }, 'job failed; it will be retried')
                observe(job.name, 'failed')
                throw error
              }
            }
          },
        )
      }
    },
    async depth() {
      const depths: Record<string, number> = {}
      for (const job of jobs) depths[job.name] = (await boss.getQueue(job.name))?.queuedCount ?? 0
      return depths
    },
    async jobCounts() {
      const names = jobs.map((job) => job.name)
      const rows = await sql<{ name: string; state: string; count: number }>`
        SELECT name, state::text AS state, count(*)::int AS count FROM pgboss.job
         WHERE name IN (${sql.join(names)}) AND state IN ('created', 'retry', 'active', 'failed')
         GROUP BY 1, 2`.execute(database.db)
      const count = (name: string, state: string) =>
        rows.rows.find((row) => row.name === name && row.state === state)?.count ?? 0
      return names.map((name) => ({
        queue: name,
        queued: count(name, 'created'),
        retrying: count(name, 'retry'),
        active: count(name, 'active'),
        failed: count(name, 'failed'),
      }))
    },
    async failedJobs(queue, limit) {
      if (!jobs.some((job) => job.name === queue)) return undefined
      const rows = await sql<{
        id: string
        created_on: Date
        completed_on: Date | null
        retry_count: number
        error: string | null
      }>`
        SELECT id::text AS id, created_on, completed_on, retry_count, left(output->>'message', 500) AS error
          FROM pgboss.job WHERE name = ${queue} AND state = 'failed'
         ORDER BY completed_on DESC NULLS LAST, id LIMIT ${limit}`.execute(database.db)
      return rows.rows.map((row) => ({
        id: row.id,
        queue,
        createdAt: new Date(row.created_on).toISOString(),
        failedAt: row.completed_on ? new Date(row.completed_on).toISOString() : null,
        attempts: Number(row.retry_count) + 1,
        error: row.error ?? 'no message recorded',
      }))
    },
    async slowJobs(minutes, limit) {
      const names = jobs.map((job) => job.name)
      const rows = await sql<{
        id: string
        name: string
        started_on: Date
        running_minutes: number
        retry_count: number
        error: string | null
      }>`
        SELECT id::text AS id, name, started_on, floor(extract(epoch FROM now() - started_on) / 60)::int AS running_minutes,
               retry_count, left(output->>'message', 500) AS error
          FROM pgboss.job
         WHERE name IN (${sql.join(names)}) AND state = 'active'
           AND started_on < now() - make_interval(mins => ${minutes})
         ORDER BY started_on, id LIMIT ${limit}`.execute(database.db)
      return rows.rows.map((row) => ({
        id: row.id,
        queue: row.name,
        startedAt: new Date(row.started_on).toISOString(),
        runningMinutes: Number(row.running_minutes),
        attempts: Number(row.retry_count) + 1,
        previousError: row.error ?? undefined,
      }))
    },
    async retryFailed(queue, jobId) {
      if (!jobs.some((job) => job.name === queue) || !UUID.test(jobId)) return false
      const job = await boss.getJobById(queue, jobId)
      if (job?.state !== 'failed') return false
      await boss.retry(queue, jobId)
      return (await boss.getJobById(queue, jobId))?.state !== 'failed' // queued again (or already running)
    },
    stop: async () => {
      errors.stop()
      await boss.stop({ graceful: true, close: true, timeout: 20_000 })
    },
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// PGlite has one connection. Kysely guards it with a lock held for a whole transaction; routing the
// queue's statements through that same lock keeps them from landing inside somebody's transaction.
function serialisedWithKysely(database: DatabaseHandle, inner: IDatabase): IDatabase {
  return {
    ...inner,
    executeSql: (text, values) => database.db.connection().execute(() => inner.executeSql(text, values)),
  }
}

function connectionStringOf(database: DatabaseHandle): string {
  if (!database.url) throw new Error('PostgreSQL handle without a URL')
  return database.url
}

/**
 * What the queue's errors become in the log. Each is one structured line (err: name, code, message).
 * While the database cannot be reached every poll, heartbeat and maintenance pass fails: the first
 * such error is logged, the rest are counted, and `probe` (a trivial query) is tried every
 * `probeIntervalMs` until it answers, which is logged once with the count. As the Redis outage is.
 */
export function reportQueueErrors(
  logger: Pick<Logger, 'error' | 'info'>,
  probe: () => Promise<unknown>,
  { probeIntervalMs = 2000 }: { probeIntervalMs?: number } = {},
): { onError(error: unknown): void; stop(): void } {
  let outage: { timer: NodeJS.Timeout; suppressed: number } | undefined
  let stopped = false
  const endOutage = () => {
    if (outage) clearInterval(outage.timer)
    outage = undefined
  }
  return {
    onError(error) {
      if (outage) {
        outage.suppressed++
        return
      }
      const err = errorSummary(error)
      const queue = (error as { queue?: unknown } | null)?.queue
      const where = typeof queue === 'string' ? { queue } : {}
      if (stopped || !isDatabaseUnavailable(Object.assign(new Error(err.message), err))) {
        logger.error({ error: err, ...where }, 'queue error')
        return
      }
      logger.error({ error: err, ...where }, 'queue cannot reach the database: jobs wait until it is back')
      let probing = false
      const timer = setInterval(async () => {
        if (probing) return
        probing = true
        try {
          await probe()
          logger.info({ suppressedErrors: outage?.suppressed ?? 0 }, 'queue reaches the database again')
          endOutage()
        } catch {
          // still unreachable
        } finally {
          probing = false
        }
      }, probeIntervalMs)
      timer.unref()
      outage = { timer, suppressed: 0 }
    },
    stop() {
      stopped = true
      endOutage()
    },
  }
}
