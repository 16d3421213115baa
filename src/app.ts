// Composition root: the one place that wires configuration, database, queue, security and routes.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino, { type Logger } from 'pino'
import type { Config } from './config/config.ts'
import { openDatabase, type DatabaseHandle } from './platform/db/database.ts'
import { migrateToLatest } from './platform/db/migrate.ts'
import { createQueue, type AnyJobDefinition, type Queue } from './platform/queue/queue.ts'
import { prepareDemoClients } from './platform/auth/clients.service.ts'
import { loadSigningKey } from './platform/auth/signing-key.ts'
import { createTokenVerifier } from './platform/auth/tokens.ts'
import { installAuthentication } from './platform/auth/authenticate.ts'
import { registerAuthRoutes } from './platform/auth/auth.routes.ts'
import { installRequestValidation } from './platform/http/request-validation.ts'
import { answerRouterError, installErrorHandling, MAX_PATH_PARAMETER_LENGTH } from './platform/http/error-handler.ts'
import { installBodyLimits } from './platform/http/body-limits.ts'
import { installBodyParsers } from './platform/http/body-parsers.ts'
import { installCompression } from './platform/http/compression.ts'
import { connectRateLimitRedis, installRateLimit } from './platform/http/rate-limit.ts'
import { installOpenApi } from './platform/http/openapi.ts'
import { installSecurityHeaders } from './platform/http/security-headers.ts'
import { registerOperationalRoutes } from './platform/http/operational.routes.ts'
import { installLegacyTwins } from './platform/http/legacy-twins.ts'
import { answerMalformedHttp } from './platform/http/malformed-http.ts'
import { installRequestIds, requestIdOf } from './platform/http/request-id.ts'
import { installClosingRefusal } from './platform/http/closing.ts'
import { createMetrics, installRequestMetrics } from './platform/observability/metrics.ts'
import { serializeRequest } from './platform/observability/log-redaction.ts'
import { housekeepingJob } from './modules/housekeeping/index.ts'
import { API_PREFIX, batchRoutes } from './modules/batches/index.ts'
import { resourceRoutes } from './modules/resources/index.ts'
import {
  createReferenceLookup,
  referenceDataRoutes,
  seedReferenceData,
  type ReferenceLookup,
} from './modules/reference-data/index.ts'
import { validationJob, validationRoutes } from './modules/validation/index.ts'
import { holdingsRoutes, reconciliationJob } from './modules/holdings/index.ts'
import { reconciliationRoutes } from './modules/reconciliation/index.ts'
import {
  assessmentJob,
  assessmentRules,
  assessmentRoutes,
  type AssessmentRule,
  type AssessmentScope,
} from './modules/assessment/index.ts'
import { declarationRoutes } from './modules/declarations/index.ts'
import { Resources } from './platform/lifecycle.ts'

export interface Service {
  config: Config
  app: FastifyInstance
  database: DatabaseHandle
  queue: Queue
  jobs: {
    housekeeping: ReturnType<typeof housekeepingJob>
    validation: ReturnType<typeof validationJob>
    reconciliation: ReturnType<typeof reconciliationJob>
    assessment: ReturnType<typeof assessmentJob>
  }
  /** Reference datasets in memory, for business rules. */
  referenceLookup: ReferenceLookup
  logger: Logger
  /** Stops accepting requests, lets in-flight requests and jobs finish, then closes the database. */
  close(): Promise<void>
}

export interface ServiceOptions {
  /** Run queue workers in this process (default: config.runWorkers). */
  workers?: boolean
  logger?: Logger
  /** Extra routes, registered with the platform's security and limits (benchmarks use it). */
  extraRoutes?: (app: FastifyInstance, service: Pick<Service, 'database'>) => void
  /**
   * Test instrumentation of data quality assessments: rules run after the catalogue's (a test uses one
   * to cause a technical error), and a hook awaited after each rule (a test holds a run In Progress).
   */
  assessment?: {
    extraRules?: readonly AssessmentRule[]
    afterRule?: (technicalRuleId: string, scope: AssessmentScope) => Promise<void>
  }
}

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const logger = (
    options.logger ??
    pino({
      level: config.logLevel,
      // Never secrets, tokens or personal data: headers and bodies are not logged at all, and these
      // paths are redacted in case a future log call passes them.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'client_secret', 'access_token', 'body'],
    })
  ).child({}, { serializers: { req: serializeRequest } }) // request URLs without query credentials, whoever made the logger
  // Closed in reverse order of opening, on shutdown or when start-up fails half-way, so a failed
  // start never leaves a process hanging on an open database or queue.
  const resources = new Resources()
  try {
    const database = resources.add(await openDatabase(config.database, logger), (handle) => handle.close())
    const migrated = await migrateToLatest(database.db)
    if (migrated.length > 0) logger.info({ migrations: migrated }, 'database migrated')
    await prepareDemoClients(database.db, config.mode)
    const seeded = await seedReferenceData(database.db)
    if (seeded.length > 0)
      logger.info({ datasets: seeded.map((s) => `${s.dataset}:${s.created}`) }, 'reference data seeded')
    const referenceLookup = createReferenceLookup(database.db)

    const metrics = createMetrics()
    const jobs = {
      housekeeping: housekeepingJob(database.db),
      validation: validationJob({ db: database.db, referenceLookup, logger, chunkSize: config.validation.chunkSize }),
      reconciliation: reconciliationJob(database.db),
      assessment: assessmentJob({
        db: database.db,
        logger,
        rules: [...assessmentRules, ...(options.assessment?.extraRules ?? [])],
        afterRule: options.assessment?.afterRule,
      }),
    }
    const queue = resources.add(
      await createQueue(database, Object.values(jobs) as AnyJobDefinition[], logger, metrics.observeJob, config.queue),
      (q) => q.stop(),
    )
    metrics.setQueueDepthSource(() => queue.depth())
    const redis = config.redis.url
      ? resources.add(await connectRateLimitRedis(config.redis.url, logger), (r) => r.disconnect())
      : undefined

    const key = await loadSigningKey(database.db, config.auth.signingKeyPem, config.mode !== 'production')
    const verifier = createTokenVerifier(database.db, key, config.auth)

    const app = resources.add(
      Fastify({
        loggerInstance: logger as FastifyBaseLogger,
        bodyLimit: config.limits.decodedBodyBytes + 1, // the body-limit hook answers first, with BRTS90400
        genReqId: requestIdOf,
        return503OnClosing: false, // answered by the closing refusal instead, as problem details
        clientErrorHandler: answerMalformedHttp,
        forceCloseConnections: 'idle',
        // Slow or stalled senders cannot hold a connection: headers and the whole request each have a
        // deadline (408 problem details, then the connection is closed), checked every second.
        requestTimeout: config.http.requestTimeoutSeconds * 1000,
        keepAliveTimeout: config.http.keepAliveTimeoutSeconds * 1000,
        http: { headersTimeout: config.http.headersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
        routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
        frameworkErrors: answerRouterError,
      }),
      (instance) => instance.close(),
    )
    installLegacyTwins(app) // the first onRoute hook: it copies routes as declared
    installSecurityHeaders(app, config.http.publicBaseUrl) // first, so early refusals carry them too
    installRequestIds(app)
    resources.add(installClosingRefusal(app), (beginClosing) => beginClosing()) // closed first, before the HTTP server
    installRequestValidation(app)
    installErrorHandling(app)
    installBodyLimits(app, config.limits)
    installBodyParsers(app)
    await installCompression(app) // before the routes: it attaches itself to each route as it is added
    installAuthentication(app, verifier) // first: its route guard must see every route, the docs' too
    await installOpenApi(app, config.http.publicBaseUrl)
    await installRateLimit(app, { ...config.rateLimit, redis, namespace: config.redis.namespace })
    installRequestMetrics(app, metrics, config.metrics)
    if (config.mode === 'production' && !config.metrics.token)
      logger.warn('METRICS_TOKEN is not set: /metrics answers 401 to every request')

    registerOperationalRoutes(app, {
      db: database.db,
      queueReady: async () => {
        await queue.depth()
        return true
      },
    })
    registerAuthRoutes(app, { db: database.db, key, auth: config.auth })
    // Each module's routes are a plugin under the API prefix, registered in turn (awaited), so the
    // route table and the OpenAPI document keep this order.
    const prefix = API_PREFIX
    const db = database.db
    await app.register(batchRoutes, { prefix, db })
    await app.register(resourceRoutes, { prefix, db })
    await app.register(referenceDataRoutes, { prefix, db, cacheRecords: config.referenceSync.cacheRecords })
    await app.register(validationRoutes, { prefix, db, queue, job: jobs.validation })
    await app.register(holdingsRoutes, { prefix, db, queue, reconcileJob: jobs.reconciliation })
    await app.register(reconciliationRoutes, { prefix, db })
    await app.register(assessmentRoutes, { prefix, db, queue, job: jobs.assessment })
    await app.register(declarationRoutes, { prefix, db })
    options.extraRoutes?.(app, { database })
    await app.ready()

    if (options.workers ?? config.runWorkers) await queue.startWorkers()
    return { config, app, database, queue, jobs, referenceLookup, logger, close: () => resources.closeAll() }
  } catch (error) {
    await resources.closeAll().catch(() => {})
    throw error
  }
}
