// The core: the database (migrated, reference data seeded), the queue and its jobs, the reference
// lookup, metrics and the logger. No HTTP: the worker process runs this alone (src/worker.ts), and the
// HTTP app is built on it (src/app.ts).
import pino, { type Logger } from 'pino'
import type { Config } from './config/config.ts'
import { openDatabase, type DatabaseHandle, type Db } from './platform/db/database.ts'
import { openReadDatabase, type ReadHandle } from './platform/db/read-database.ts'
import { migrateToLatest } from './platform/db/migrate.ts'
import { createQueue, type AnyJobDefinition, type Queue } from './platform/queue/queue.ts'
import { createMetrics, type Metrics } from './platform/observability/metrics.ts'
import { serializeError, serializeRequest } from './platform/observability/log-redaction.ts'
import { OpenHandles } from './platform/lifecycle.ts'
import { housekeepingJob } from './modules/housekeeping/index.ts'
import { createReferenceLookup, seedReferenceData, type ReferenceLookup } from './modules/reference-data/index.ts'
import { validationJob } from './modules/validation/index.ts'
import { reconciliationJob } from './modules/reconciliation/index.ts'
import { assessmentJob, assessmentRules } from './modules/assessment/index.ts'
import { droppedLinesAcknowledged, natImportJob } from './modules/nat-bridge/index.ts'
import { submitJob } from './modules/holdings/index.ts'
import { startNatsRelay } from './modules/events/index.ts'
import { dueNoticesJob } from './modules/declarations/index.ts'
import { startWebhookDelivery, webhookSettingsOf } from './modules/webhooks/index.ts'

export interface Core {
  config: Config
  database: DatabaseHandle
  /**
   * Where the endpoints routed to the read replica read: the replica of DATABASE_READ_URL, or the
   * primary (docs/decisions.md, "Read routing (issue 21)").
   */
  read: ReadHandle
  queue: Queue
  jobs: CoreJobs
  /** Reference datasets in memory, for business rules. */
  referenceLookup: ReferenceLookup
  metrics: Metrics
  logger: Logger
  /**
   * What was opened at start-up, closed newest first by close(). What is built on the core (the HTTP
   * app) adds its own here, so it is closed before the queue and the database.
   */
  handles: OpenHandles
  /** Closes everything opened: lets in-flight jobs finish, stops the queue, closes the database. */
  close(): Promise<void>
}

export interface CoreOptions {
  logger?: Logger
}

/** What the queue's jobs are built from. */
export interface JobDependencies {
  config: Config
  db: Db
  referenceLookup: ReferenceLookup
  logger: Logger
  /** The queue the jobs are registered with (made after them): what a job enqueues further work on. */
  queue: () => Queue
}

/** The queue's jobs, as the service runs them. */
export function coreJobs({ config, db, referenceLookup, logger, queue }: JobDependencies) {
  const reconciliation = reconciliationJob(db, { sliceRecords: config.reconciliation.sliceRecords })
  return {
    housekeeping: housekeepingJob(db, {
      auditRetentionDays: config.audit.retentionDays,
      webhookLogRetentionDays: config.webhooks.logRetentionDays,
    }),
    validation: validationJob({
      db,
      referenceLookup,
      logger,
      chunkSize: config.validation.chunkSize,
      resultSliceRows: config.validation.resultSliceRows,
      setRuleSliceRecords: config.validation.setRuleSliceRecords,
    }),
    reconciliation,
    assessment: assessmentJob({
      db,
      logger,
      rules: assessmentRules,
      sliceRecords: config.assessment.sliceRecords,
      resultSliceRows: config.assessment.resultSliceRows,
      workingCopy: config.assessment.workingCopy,
    }),
    declarationDueNotices: dueNoticesJob(db, config.declarations.dueSoonDays),
    natImport: natImportJob(db, { natFilesBytes: config.limits.natFilesBytes }),
    // The console's submit (the API's use case and conditions, run as a job with a status page).
    submit: submitJob({ db, queue, reconcileJob: reconciliation, submitConditions: [droppedLinesAcknowledged] }),
  }
}
export type CoreJobs = ReturnType<typeof coreJobs>

/**
 * Opens the database, migrates it, seeds reference data and creates the queue with its jobs. Queue
 * workers are not started: the caller starts them (core.queue.startWorkers()) once it is ready.
 * `jobsOf` builds the jobs (the service's own by default).
 */
export async function createCore(
  config: Config,
  options: CoreOptions = {},
  jobsOf: (deps: JobDependencies) => CoreJobs = coreJobs,
): Promise<Core> {
  const logger = (
    options.logger ??
    pino({
      level: config.logLevel,
      // Never secrets, tokens or personal data: headers and bodies are not logged at all, and these
      // paths are redacted in case a future log call passes them.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'client_secret', 'access_token', 'body'],
    })
  ).child({}, { serializers: { req: serializeRequest, err: serializeError, error: serializeError } }) // request URLs without query credentials, errors without the values a statement was given, whoever made the logger
  // Closed in reverse order of opening, on shutdown or when start-up fails half-way, so a failed
  // start never leaves a process hanging on an open database or queue.
  const handles = new OpenHandles()
  try {
    const metrics = createMetrics()
    const database = handles.add(
      await openDatabase(config.database, logger, { onQuery: (failed) => metrics.observeQuery('primary', failed) }),
      (handle) => handle.close(),
    )
    metrics.addPoolSource('primary', () => database.poolStats())
    const read = handles.add(
      await openReadDatabase(config.database, database, {
        logger,
        onQuery: (failed) => metrics.observeQuery('replica', failed),
      }),
      (handle) => handle.close(),
    )
    metrics.addPoolSource('replica', () => read.poolStats())
    if (read.source === 'replica') logger.info('reads routed to the replica (DATABASE_READ_URL)')
    const migrated = await migrateToLatest(database.db)
    if (migrated.length > 0) logger.info({ migrations: migrated }, 'database migrated')
    const seeded = await seedReferenceData(database.db)
    if (seeded.length > 0)
      logger.info({ datasets: seeded.map((s) => `${s.dataset}:${s.created}`) }, 'reference data seeded')
    const referenceLookup = createReferenceLookup(database.db)

    let made: Queue | undefined
    const queueOfJobs = () => {
      if (!made) throw new Error('the queue is not made yet')
      return made
    }
    const jobs = jobsOf({ config, db: database.db, referenceLookup, logger, queue: queueOfJobs })
    // Closed after the queue and before the database: links staged beside a submit that is still running.
    handles.add(jobs.reconciliation, (job) => job.settled())
    const queue = handles.add(
      await createQueue(database, Object.values(jobs) as AnyJobDefinition[], logger, metrics.observeJob, config.queue),
      (q) => q.stop(),
    )
    made = queue
    metrics.setQueueDepthSource(() => queue.depth())
    return {
      config,
      database,
      read,
      queue,
      jobs,
      referenceLookup,
      metrics,
      logger,
      handles,
      close: () => handles.closeAll(),
    }
  } catch (error) {
    await handles.closeAll().catch(() => {})
    throw error
  }
}

/**
 * Starts the background work of a process that runs workers: the queue's workers, the webhook
 * delivery loop and, with NATS_URL, the relay publishing the event outbox to NATS JetStream (loops of
 * their own: a slow receiver or an absent broker holds no job and no request). All stop with the core.
 */
export async function startBackgroundWork(core: Core): Promise<void> {
  await core.queue.startWorkers()
  // The due-date notices run daily, and once when a process with workers starts (a deployment that was
  // down at the scheduled hour catches up); a singleton key keeps concurrent starts to one queued run,
  // and the notices' own keys make any rerun add nothing.
  const notices = core.jobs.declarationDueNotices
  await core.database.db
    .transaction()
    .execute((tx) => core.queue.enqueue(tx, notices, notices.schedule!.data, { singletonKey: 'on-start' }))
  const webhooks = core.config.webhooks
  core.handles.add(
    startWebhookDelivery({
      db: core.database.db,
      logger: core.logger,
      policy: webhookSettingsOf(webhooks).policy,
      timeoutMs: webhooks.timeoutMs,
      retryScheduleMs: webhooks.retryScheduleMs,
      secretsKey: webhooks.secretsKey,
    }),
    (delivery) => delivery.stop(),
  )
  const { natsUrl, natsStream } = core.config.events
  if (natsUrl !== undefined)
    core.handles.add(
      startNatsRelay({ db: core.database.db, logger: core.logger, url: natsUrl, stream: natsStream }),
      (relay) => relay.stop(),
    )
}
