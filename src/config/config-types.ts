// The configuration as the service uses it: what loadConfig (config.ts) makes of the environment.
import type { Environment } from './environment.ts'

export interface Config {
  mode: Environment['SERVICE_MODE']
  http: {
    port: number
    host: string
    publicBaseUrl: string
    /** A request whose headers, or whole body, have not arrived by then is answered 408 and closed. */
    headersTimeoutSeconds: number
    requestTimeoutSeconds: number
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutSeconds: number
    /** TRUST_PROXY: the proxies whose X-Forwarded-For is believed; empty, the connection's address is the client's. */
    trustedProxies: string[]
  }
  database:
    | {
        kind: 'pglite'
        dataDir: string
        /** EMBEDDED_SHARED_BUFFERS_MB: PGlite's shared_buffers; undefined, PGlite's own default (128 MB). */
        sharedBuffersMb?: number
      }
    | {
        kind: 'postgres'
        url: string
        /** DATABASE_READ_URL: a streaming replica for the endpoints routed to it; undefined, they read the primary. */
        readUrl: string | undefined
        poolSize: number
        connectTimeoutSeconds: number
      }
  redis: { url: string | undefined; namespace: string }
  /** NATS_URL and NATS_STREAM: where the relay publishes the outbox; no url, no relay. */
  events: { natsUrl: string | undefined; natsStream: string }
  /** DECLARATION_DUE_SOON_DAYS: a declaration.due-soon event is recorded this many days (or fewer) before the due date. */
  declarations: { dueSoonDays: number }
  /** AUDIT_RETENTION_DAYS: days of audit entries kept, whole days (issue 33). */
  audit: { retentionDays: number }
  webhooks: WebhookConfig
  logLevel: Environment['LOG_LEVEL']
  runWorkers: boolean
  shutdownTimeoutSeconds: number
  /** A job whose worker stops sending heartbeats (it died) is retried after about heartbeat + supervise interval. */
  /**
   * jobsPerQueue: jobs of one kind a process runs at once; jobsPerRto: jobs of one kind that run at
   * once for one RTO across every process, so one RTO's large run never holds every worker.
   */
  queue: { heartbeatSeconds: number; superviseIntervalSeconds: number; jobsPerQueue: number; jobsPerRto: number }
  /** Records a validation run reads per round trip: memory per run against round trips. */
  /**
   * Records a validation run reads per round trip: memory per run against round trips. Result rows
   * written per statement (undefined: the database's default; null: each rule's in one statement; issue 30).
   */
  validation: {
    chunkSize: number
    resultSliceRows: number | null | undefined
    setRuleSliceRecords: number | null | undefined
  }
  /** Records per statement when an assessment copies its period, result rows per statement (statements stay short, issue 30). */
  assessment: { sliceRecords: number; resultSliceRows: number | null | undefined; workingCopy: boolean | undefined }
  /**
   * Records per step when the embedded database indexes a submission for reconciliation (each step its
   * own short transaction, issue 30); PostgreSQL indexes a submission in one transaction.
   */
  reconciliation: { sliceRecords: number }
  /** Records of reference-data synchronisation pages kept in memory (0: none). */
  referenceSync: { cacheRecords: number }
  auth: {
    tokenTtlSeconds: number
    issuer: string
    audience: string
    signingKeyPem: string | undefined
    clientCacheSeconds: number
    external: { issuer: string; audience: string; jwksUrl: string; rtoClaim: string; clientClaim: string } | undefined
  }
  /**
   * Request bodies on the wire and decompressed; records (NDJSON lines) in one bulk upload; a NAT
   * import's zip (on the wire and decompressed, in place of the first two) and what its NAT files
   * hold uncompressed.
   */
  limits: {
    wireBodyBytes: number
    decodedBodyBytes: number
    bulkRecords: number
    natZipBytes: number
    natFilesBytes: number
  }
  rateLimit: { max: number; windowSeconds: number }
  /** /metrics needs `Authorization: Bearer <token>` when `required`; with no token set nothing matches. */
  metrics: { token: string | undefined; required: boolean }
  /** The worker process's own listener for /metrics and /health/live (npm run worker); none when undefined. */
  workerMetricsPort: number | undefined
  /**
   * The web console: where people sign in (an external OpenID Connect provider, or in development the
   * built-in one), which claims carry their RTO and role, and their sessions. Undefined: no console
   * (production without an identity provider).
   */
  console: ConsoleConfig | undefined
}

/** Webhook delivery (issue 33): where endpoints may be, how long a delivery may take, its retries. */
export interface WebhookConfig {
  /** Loopback, private, link-local... addresses accepted (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** CIDR blocks accepted even though private (WEBHOOK_ALLOWED_CIDRS). */
  allowedCidrs: string[]
  /** http:// endpoints accepted (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean
  timeoutMs: number
  /** Waits before each retry, in milliseconds; after the last retry fails the endpoint is disabled. */
  retryScheduleMs: number[]
  /** How long the previous secret stays valid (and signs too) after a rotation. */
  rotationOverlapMs: number
  /** 32 bytes that seal stored secrets; undefined: stored unsealed. */
  secretsKey: Buffer | undefined
  logRetentionDays: number
}

export interface ConsoleConfig {
  identityProvider:
    | { kind: 'built-in' }
    | { kind: 'external'; issuer: string; clientId: string; clientSecret: string | undefined }
  scope: string
  rtoClaim: string
  roleClaim: string
  /** 32 bytes; undefined in development without CONSOLE_SESSION_KEY (a key is generated at start). */
  sessionKey: Buffer | undefined
  /** A session unused for this long is over; every request renews it. */
  sessionIdleSeconds: number
}
