// Background work goes through pg-boss on the same database as the data, in both transports. A job is
// enqueued with the transaction that changes state, so the change and its job commit together or not
// at all. Delivery is at least once: every handler must be safe to run twice.
import { PgBoss, fromKysely, fromPglite, type Db as IDatabase, type Job } from 'pg-boss'
import type { Logger } from 'pino'
import type { DatabaseHandle, Tx } from '../db/database.ts'
import { errorSummary } from '../observability/log-redaction.ts'

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
  stop(): Promise<void>
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
  // Its errors include pool errors of idle connections, which carry the whole pg client.
  boss.on('error', (error: Error) => logger.error({ err: errorSummary(error) }, 'queue error'))
  await boss.start()
  for (const job of jobs) {
    const heartbeat = job.heartbeat ? { heartbeatSeconds: settings.heartbeatSeconds } : {}
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
    stop: () => boss.stop({ graceful: true, close: true, timeout: 20_000 }),
  }
}

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
