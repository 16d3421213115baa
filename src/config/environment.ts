// The settings the service reads from its environment: each one's type, bounds and default, as one
// TypeBox schema (config.ts validates against it and lists every problem).
import Type, { type Static } from 'typebox'

const integer = (minimum: number, defaultValue: number, maximum?: number) =>
  Type.Integer({ minimum, default: defaultValue, ...(maximum === undefined ? {} : { maximum }) })

export const EnvironmentSchema = Type.Object({
  SERVICE_MODE: Type.Enum(['development', 'production'], {
    default: 'development',
    description: 'production never creates demo clients and refuses to start if they exist',
  }),
  PORT: integer(0, 8080, 65535),
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({ minLength: 1, description: 'base URL clients use; default http://HOST:PORT' }),
  ),
  TRUST_PROXY: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'addresses or CIDR ranges of the load balancers in front (comma-separated): a request from one of them is taken to come from the address its X-Forwarded-For names; unset, the header is ignored',
    }),
  ),
  HTTP_HEADERS_TIMEOUT_SECONDS: integer(1, 10, 600),
  HTTP_REQUEST_TIMEOUT_SECONDS: integer(1, 60, 3600),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: integer(1, 72, 3600),
  DATA_DIR: Type.String({
    default: './data',
    minLength: 1,
    description: 'embedded database directory, or memory:// for an in-memory one',
  }),
  EMBEDDED_SHARED_BUFFERS_MB: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1024,
      description:
        "the embedded database's shared_buffers in MB (its page cache, inside its WebAssembly memory, which never shrinks); unset, PGlite's own 128",
    }),
  ),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_READ_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        "a streaming replica of DATABASE_URL's database: the read-only endpoints that may lag (reconciliation, reference data synchronisation, held records) read there; absent, everything reads the primary",
    }),
  ),
  DATABASE_POOL_SIZE: integer(1, 10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: integer(1, 5, 300),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_NAMESPACE: Type.String({
    default: 'vetrs',
    pattern: '^[A-Za-z0-9_.-]+$',
    description: "prefix of this deployment's keys in a shared Redis",
  }),
  NATS_URL: Type.Optional(
    Type.String({
      pattern: '^(nats|tls)://',
      description:
        'a NATS server with JetStream: the relay publishes the event outbox to it (issue 33); absent, events stay in the outbox and the change feed',
    }),
  ),
  NATS_STREAM: Type.String({
    default: 'VETRS_EVENTS',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
    description: 'the JetStream stream the relay publishes to (created when missing)',
  }),
  DECLARATION_DUE_SOON_DAYS: integer(0, 7, 90),
  AUDIT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36_525,
    default: 2557,
    description:
      'days of audit trail entries kept (today counts as one); housekeeping removes older days whole. Default 2557: seven years',
  }),
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(
    Type.Boolean({
      description:
        'deliver webhooks to loopback, private, link-local, CGNAT, unspecified and multicast addresses; default false in production, true in development',
    }),
  ),
  WEBHOOK_ALLOWED_CIDRS: Type.Optional(
    Type.String({
      pattern: '^[0-9A-Fa-f:./]+(,[0-9A-Fa-f:./]+)*$',
      description:
        'comma-separated CIDR blocks (10.20.0.0/16,fd00:1::/64) webhooks may be delivered to even though private',
    }),
  ),
  WEBHOOK_ALLOW_HTTP: Type.Optional(
    Type.Boolean({ description: 'accept http:// webhook endpoints; default false in production, true in development' }),
  ),
  WEBHOOK_TIMEOUT_SECONDS: integer(1, 10, 60),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: Type.String({
    default: '5,300,1800,7200,18000,36000,36000',
    pattern: '^[0-9]{1,6}(\\.[0-9]{1,3})?(,[0-9]{1,6}(\\.[0-9]{1,3})?){0,19}$',
    description:
      'waits before each retry of a failed delivery, in seconds (each varied by up to 10 % either way); after the last, the endpoint is disabled',
  }),
  WEBHOOK_ROTATION_OVERLAP_HOURS: integer(0, 24, 720),
  WEBHOOK_SECRETS_KEY: Type.Optional(
    Type.String({
      pattern: '^[0-9a-fA-F]{64}$',
      description:
        'seals webhook signing secrets in the database (AES-256-GCM): 32 bytes as 64 hexadecimal digits, the same in every process; without it they are stored unsealed',
    }),
  ),
  WEBHOOK_LOG_RETENTION_DAYS: integer(1, 30, 3650),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  RUN_WORKERS: Type.Boolean({ default: true, description: 'run queue workers inside the HTTP server process' }),
  WORKER_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'npm run worker: serve /metrics and /health/live on this port (HOST); none when unset',
    }),
  ),
  SHUTDOWN_TIMEOUT_SECONDS: integer(1, 30),
  QUEUE_HEARTBEAT_SECONDS: integer(10, 30, 3600),
  VALIDATION_CHUNK_SIZE: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100000,
      description:
        'records a validation run reads per round trip; default 2000 on PostgreSQL, 500 on the embedded database',
    }),
  ),
  ASSESSMENT_SLICE_RECORDS: integer(1, 2500, 100000),
  ASSESSMENT_WORKING_COPY: Type.Optional(
    Type.Boolean({
      description:
        'whether an assessment copies its period first and its rules read the copy; default true on the embedded database, false on PostgreSQL (slower there: bench/results.md)',
    }),
  ),
  RESULT_SLICE_ROWS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100000,
      description:
        "result rows a validation or assessment rule writes per statement; default 1000 on the embedded database, on PostgreSQL each rule's results in one statement (0: one statement on both)",
    }),
  ),
  VALIDATION_SET_RULE_SLICE_RECORDS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1000000,
      description:
        "batch records per statement of a validation set rule run in key slices of the batch; default 5000 on the embedded database, on PostgreSQL each rule's query in one statement (0: one statement on both)",
    }),
  ),
  RECONCILIATION_SLICE_RECORDS: integer(1, 1000, 100000),
  REFERENCE_SYNC_CACHE_RECORDS: integer(0, 100_000),
  QUEUE_SUPERVISE_INTERVAL_SECONDS: integer(1, 30, 3600),
  QUEUE_JOBS_PER_QUEUE: integer(1, 2, 32),
  QUEUE_JOBS_PER_RTO: integer(1, 1, 32),

  AUTH_TOKEN_TTL_SECONDS: integer(1, 1800),
  AUTH_ISSUER: Type.Optional(
    Type.String({ minLength: 1, description: 'iss of issued tokens; default PUBLIC_BASE_URL' }),
  ),
  AUTH_AUDIENCE: Type.String({ default: 'vet-reporting-service', minLength: 1 }),
  AUTH_SIGNING_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'PKCS#8 PEM of an EC P-256 key; required in production; in development default a key generated once and kept in the database',
    }),
  ),
  AUTH_SIGNING_KEY_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'path of a file holding that PEM (a mounted secret), instead of AUTH_SIGNING_KEY',
    }),
  ),
  AUTH_CLIENT_CACHE_SECONDS: integer(0, 30),
  AUTH_EXTERNAL_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  AUTH_EXTERNAL_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  AUTH_EXTERNAL_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  AUTH_EXTERNAL_RTO_CLAIM: Type.String({ default: 'rto', minLength: 1 }),
  AUTH_EXTERNAL_CLIENT_CLAIM: Type.String({ default: 'client_id', minLength: 1 }),

  LIMIT_WIRE_BODY_BYTES: integer(1, 1024 * 1024),
  LIMIT_DECODED_BODY_BYTES: integer(1, 10 * 1024 * 1024),
  LIMIT_BULK_RECORDS: integer(1, 10_000, 1_000_000),
  LIMIT_NAT_ZIP_BYTES: integer(1, 8 * 1024 * 1024, 1024 * 1024 * 1024),
  LIMIT_NAT_FILES_BYTES: integer(1, 48 * 1024 * 1024, 1024 * 1024 * 1024),

  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      pattern: '^[A-Za-z0-9._~+/-]+=*$',
      description:
        'bearer token /metrics requires; required by /metrics in production (without it /metrics answers 401), enforced in development when set',
    }),
  ),

  RATE_LIMIT_MAX: integer(0, 1200),
  RATE_LIMIT_WINDOW_SECONDS: integer(1, 60),

  CONSOLE_OIDC_ISSUER: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'the identity provider people sign in to the console with (OpenID Connect); without it, development mode runs a built-in provider with demo people and production serves no console',
    }),
  ),
  CONSOLE_OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  CONSOLE_OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  CONSOLE_OIDC_SCOPE: Type.String({ default: 'openid profile email', pattern: '(^| )openid( |$)' }),
  CONSOLE_OIDC_RTO_CLAIM: Type.String({ default: 'rto', minLength: 1 }),
  CONSOLE_OIDC_ROLE_CLAIM: Type.String({ default: 'vetrs_role', minLength: 1 }),
  CONSOLE_SESSION_KEY: Type.Optional(
    Type.String({
      pattern: '^[0-9a-fA-F]{64}$',
      description:
        'seals console session cookies: 32 bytes as 64 hexadecimal digits, the same in every API process; required in production with a console; in development default a key generated at start',
    }),
  ),
  CONSOLE_SESSION_IDLE_SECONDS: integer(1, 1800, 86400),
})

export type Environment = Static<typeof EnvironmentSchema>
