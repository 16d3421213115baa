// Composition root of the API process: the HTTP app (security, limits, documentation, every module's
// routes) built on the core (src/core.ts: database, queue, jobs).
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Config } from './config/config.ts'
import { createCore, startBackgroundWork, type Core, type CoreOptions } from './core.ts'
import { prepareDemoClients } from './platform/auth/clients.service.ts'
import { loadSigningKey } from './platform/auth/signing-key.ts'
import { createTokenVerifier } from './platform/auth/tokens.ts'
import { installAuthentication } from './platform/auth/authenticate.ts'
import { registerAuthRoutes } from './platform/auth/auth.routes.ts'
import { installRequestValidation } from './platform/http/request-validation.ts'
import { SERIALIZER_AJV_OPTIONS } from './platform/schema/ajv.ts'
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
import { RequestLog } from './platform/http/request-log.ts'
import { installClosingRefusal } from './platform/http/closing.ts'
import { installIdempotency } from './platform/http/idempotency.ts'
import { installAuditHook } from './platform/http/audit-hook.ts'
import { installRequestMetrics } from './platform/observability/metrics.ts'
import { batchRoutes } from './modules/batches/index.ts'
import { API_PREFIX } from './platform/http/api-prefix.ts'
import { resourceRoutes } from './modules/resources/index.ts'
import { referenceDataRoutes } from './modules/reference-data/index.ts'
import { validationRoutes } from './modules/validation/index.ts'
import { ruleCatalogueRoutes } from './modules/rule-catalogue/index.ts'
import { holdingsRoutes } from './modules/holdings/index.ts'
import { reconciliationRoutes } from './modules/reconciliation/index.ts'
import { assessmentRoutes } from './modules/assessment/index.ts'
import { declarationRoutes } from './modules/declarations/index.ts'
import { droppedLinesAcknowledged, natBridgeRoutes } from './modules/nat-bridge/index.ts'
import { CONSOLE_PREFIX, consoleRoutes } from './modules/console/index.ts'
import { eventRoutes } from './modules/events/index.ts'
import { auditInStatement, createAuditWriter } from './modules/audit/index.ts'
import { webhookRoutes, webhookSettingsOf } from './modules/webhooks/index.ts'

export interface Service extends Core {
  app: FastifyInstance
  /** Stops accepting requests, lets in-flight requests and jobs finish, then closes the database. */
  close(): Promise<void>
}

export interface ServiceOptions extends CoreOptions {
  /** Run queue workers in this process (default: config.runWorkers). */
  workers?: boolean
}

export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const core = await createCore(config, options)
  try {
    const app = await createHttpApp(core)
    await app.ready()
    if (options.workers ?? config.runWorkers) await startBackgroundWork(core)
    return { ...core, app }
  } catch (error) {
    await core.close().catch(() => {})
    throw error
  }
}

/**
 * The HTTP app on a core, with every route registered, not yet ready (the caller calls app.ready()).
 * What it opens is added to core.handles, so core.close() closes it first.
 */
export async function createHttpApp(core: Core): Promise<FastifyInstance> {
  const { config, database, read, queue, jobs, metrics, logger, handles } = core
  const db = database.db
  // The read-only endpoints that may lag read through this (docs/decisions.md, "Read routing (issue 21)").
  const readDb = read.db
  await prepareDemoClients(db, config.mode)
  const redis = config.redis.url
    ? handles.add(await connectRateLimitRedis(config.redis.url, logger), (r) => r.disconnect())
    : undefined

  const key = await loadSigningKey(db, config.auth.signingKeyPem, config.mode !== 'production')
  const verifier = createTokenVerifier(db, key, config.auth)

  const app = handles.add(
    Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      bodyLimit: config.limits.decodedBodyBytes + 1, // the body-limit hook answers first, with BRTS90400
      genReqId: requestIdOf,
      logController: new RequestLog(), // one line per request instead of two; health checks at debug
      return503OnClosing: false, // answered by the closing refusal instead, as problem details
      clientErrorHandler: answerMalformedHttp,
      forceCloseConnections: 'idle',
      // Behind a load balancer, request.ip (what the rate limit counts unauthenticated requests by) is
      // the client's only when X-Forwarded-For comes from a proxy named in TRUST_PROXY.
      trustProxy: config.http.trustedProxies.length > 0 ? config.http.trustedProxies : false,
      // Slow or stalled senders cannot hold a connection: headers and the whole request each have a
      // deadline (408 problem details, then the connection is closed), checked every second.
      requestTimeout: config.http.requestTimeoutSeconds * 1000,
      keepAliveTimeout: config.http.keepAliveTimeoutSeconds * 1000,
      http: { headersTimeout: config.http.headersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
      routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
      frameworkErrors: answerRouterError,
      serializerOpts: { ajv: SERIALIZER_AJV_OPTIONS },
    }),
    (instance) => instance.close(),
  )
  installLegacyTwins(app) // the first onRoute hook: it copies routes as declared
  installSecurityHeaders(app, config.http.publicBaseUrl) // first, so early refusals carry them too
  installRequestIds(app)
  handles.add(installClosingRefusal(app), (beginClosing) => beginClosing()) // closed first, before the HTTP server
  installRequestValidation(app)
  installErrorHandling(app)
  installBodyLimits(app, config.limits)
  installBodyParsers(app)
  // Audited routes (config.audit) write their entry before the answer leaves, and before compression
  // takes the answer: a read whose entry cannot be written is answered 503 instead (issue 33).
  const audit = createAuditWriter(db)
  installAuditHook(
    app,
    (entry) => audit.write(entry),
    (entry) => auditInStatement(entry),
  )
  await installCompression(app) // before the routes: it attaches itself to each route as it is added
  // Rate limiting is checked by authentication, once it knows the caller and before it refuses one.
  const limit = await installRateLimit(app, { ...config.rateLimit, redis, namespace: config.redis.namespace })
  installAuthentication(app, verifier, { limit }) // first route hook: its route guard must see every route, the docs' too
  installIdempotency(app, db) // before the OpenAPI description, which shows the header and its answers
  await installOpenApi(app, config.http.publicBaseUrl)
  installRequestMetrics(app, metrics, config.metrics)
  if (config.mode === 'production' && !config.metrics.token)
    logger.warn('METRICS_TOKEN is not set: /metrics answers 401 to every request')

  registerOperationalRoutes(app, {
    db,
    queueReady: async () => {
      await queue.depth()
      return true
    },
    replica: read.source === 'replica' ? read.ping : undefined,
    home: config.console ? `${CONSOLE_PREFIX}/` : '/docs/',
  })
  registerAuthRoutes(app, { db, key, auth: config.auth })
  // Each module's routes are a plugin under the API prefix, registered in turn (awaited), so the
  // route table and the OpenAPI document keep this order.
  const prefix = API_PREFIX
  await app.register(batchRoutes, { prefix, db })
  await app.register(resourceRoutes, { prefix, db, maxBulkRecords: config.limits.bulkRecords })
  await app.register(referenceDataRoutes, { prefix, readDb, cacheRecords: config.referenceSync.cacheRecords })
  await app.register(validationRoutes, { prefix, db, queue, job: jobs.validation })
  await app.register(ruleCatalogueRoutes, { prefix })
  // Nothing submitted by mistake: a NAT import's dropped lines are acknowledged (nat-bridge's condition).
  const submitConditions = [droppedLinesAcknowledged]
  await app.register(holdingsRoutes, { prefix, db, readDb, queue, reconcileJob: jobs.reconciliation, submitConditions })
  await app.register(reconciliationRoutes, { prefix, readDb })
  await app.register(assessmentRoutes, { prefix, db, queue, job: jobs.assessment })
  await app.register(declarationRoutes, { prefix, db })
  await app.register(natBridgeRoutes, { prefix, db, queue, job: jobs.natImport, limits: config.limits })
  await app.register(eventRoutes, { prefix, db })
  await app.register(webhookRoutes, { prefix, db, settings: webhookSettingsOf(config.webhooks) })
  // The web console (pages, not API operations): absent in production without an identity provider.
  if (config.console)
    await app.register(consoleRoutes, {
      prefix: CONSOLE_PREFIX,
      console: config.console,
      publicBaseUrl: config.http.publicBaseUrl,
      natLimits: config.limits,
      db,
      readDb,
      queue,
      validationJob: jobs.validation,
      reconcileJob: jobs.reconciliation,
      assessmentJob: jobs.assessment,
      natImportJob: jobs.natImport,
      submitJob: jobs.submit,
    })
  return app
}
