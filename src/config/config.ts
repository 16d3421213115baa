// The only module that reads process.env. Configuration is validated once at start-up; a bad value
// stops the process with every problem listed, never the first one only.
import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import Type, { type Static } from 'typebox'
import Value from 'typebox/value'

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
  ASSESSMENT_SLICE_RECORDS: integer(1, 5000, 100000),
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

type Environment = Static<typeof EnvironmentSchema>

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

export class ConfigError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.problems = problems
  }
}

/** What the process reading the configuration does with it. */
export interface ConfigUse {
  /**
   * False for processes that neither sign nor verify access tokens (the worker, the admin CLI, the
   * synthetic seed): production does not ask them for a signing key. A key given is still checked.
   */
  signsTokens?: boolean
}

/** Reads configuration from an environment-like record; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env, use: ConfigUse = {}): Config {
  const known = Object.fromEntries(
    Object.keys(EnvironmentSchema.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  )
  // TypeBox's conversion truncates a number to an integer ("1.5" becomes 1, "1e2" 100): a whole-number
  // setting is taken only as written in digits, and anything else is named as a problem.
  const notWhole = new Set(
    Object.entries(EnvironmentSchema.properties)
      .filter(([name, schema]) => (schema as { type?: unknown }).type === 'integer' && name in known)
      .filter(([name]) => !/^\s*-?\d+\s*$/.test(String(known[name])))
      .map(([name]) => name),
  )
  const convertible = Object.fromEntries(Object.entries(known).filter(([name]) => !notWhole.has(name)))
  const value = Value.Default(EnvironmentSchema, Value.Convert(EnvironmentSchema, convertible)) as Environment
  // Checked one variable at a time, so that every bad variable is named, each once.
  const problems = Object.entries(EnvironmentSchema.properties).flatMap(([name, schema]) => {
    if (notWhole.has(name)) return [`${name}: must be a whole number (got ${shownValue(name, known[name])})`]
    const current = (value as Record<string, unknown>)[name]
    if (current === undefined) return []
    const [first] = Value.Errors(schema, current)
    return first ? [`${name}: ${describeProblem(schema, first.message)} (got ${shownValue(name, known[name])})`] : []
  })
  problems.push(...crossFieldProblems(value))
  const signingKey = signingKeyOf(value, use.signsTokens ?? true)
  problems.push(...signingKey.problems)
  if (problems.length > 0) throw new ConfigError([...new Set(problems)])
  return toConfig(value, signingKey.pem)
}

/**
 * The token signing key from AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE, checked now so that a bad key
 * stops start-up with the other problems. Production must give one to every process that signs or
 * verifies tokens (`required`): the generated key is kept in the database in clear, and whoever can
 * read the database could then sign tokens. Problems never quote the key.
 */
function signingKeyOf(env: Environment, required: boolean): { pem: string | undefined; problems: string[] } {
  if (env.AUTH_SIGNING_KEY && env.AUTH_SIGNING_KEY_FILE) {
    return { pem: undefined, problems: ['AUTH_SIGNING_KEY and AUTH_SIGNING_KEY_FILE: set one of them, not both'] }
  }
  let pem = env.AUTH_SIGNING_KEY
  let source = 'AUTH_SIGNING_KEY'
  if (env.AUTH_SIGNING_KEY_FILE) {
    source = 'AUTH_SIGNING_KEY_FILE'
    try {
      pem = readFileSync(env.AUTH_SIGNING_KEY_FILE, 'utf8')
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable'
      return {
        pem: undefined,
        problems: [`AUTH_SIGNING_KEY_FILE: cannot read ${JSON.stringify(env.AUTH_SIGNING_KEY_FILE)} (${reason})`],
      }
    }
  }
  if (pem === undefined) {
    return env.SERVICE_MODE === 'production' && required
      ? {
          pem,
          problems: [
            'SERVICE_MODE=production needs AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE (PKCS#8 PEM of an EC P-256 key); production never generates a key and keeps it in the database',
          ],
        }
      : { pem, problems: [] }
  }
  return isP256Pkcs8(pem)
    ? { pem, problems: [] }
    : {
        pem: undefined,
        problems: [`${source}: not a PKCS#8 PEM of an EC P-256 private key (-----BEGIN PRIVATE KEY-----)`],
      }
}

function isP256Pkcs8(pem: string): boolean {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----')) return false
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' })
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
  } catch {
    return false
  }
}

// TypeBox's message for a choice does not say what the choices are; the operator needs them.
function describeProblem(schema: unknown, message: string): string {
  const allowed = (schema as { enum?: unknown }).enum
  if (Array.isArray(allowed)) return `must be one of ${allowed.join(', ')}`
  if ((schema as { type?: unknown }).type === 'boolean') return 'must be true or false'
  return message
}

// A configuration error is printed and logged: it must never carry a secret, valid or not. These
// settings are never quoted at all; connection strings (DATABASE_URL, DATABASE_READ_URL, REDIS_URL)
// are quoted without their password (withoutPassword).
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'AUTH_SIGNING_KEY',
  'CONSOLE_OIDC_CLIENT_SECRET',
  'CONSOLE_SESSION_KEY',
  'METRICS_TOKEN',
  'WEBHOOK_SECRETS_KEY',
])
function shownValue(name: string, value: unknown): string {
  if (SECRET_SETTINGS.has(name)) return '(secret, not shown)'
  return JSON.stringify(typeof value === 'string' ? withoutPassword(value) : value)
}

/** Query parameters of a connection string that carry a secret (libpq's password and sslpassword). */
const SECRET_CONNECTION_PARAMETERS = /([?&](?:[a-z_]*pass(?:word)?|secret|token)=)[^&#]*/gi

/**
 * A connection string as it may be shown: any password replaced by ***, even in one that does not
 * parse or lacks its scheme, and so are password parameters of its query string.
 */
export function withoutPassword(connectionString: string): string {
  // Greedy to the last @: a password that is not percent-encoded may hold one; better too much hidden.
  return connectionString
    .replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)|(?![a-z][a-z0-9+.-]*:\/\/))([^:@?#\s]*):.*@/i, '$1$2:***@')
    .replace(SECRET_CONNECTION_PARAMETERS, '$1***')
}

function crossFieldProblems(env: Environment): string[] {
  const problems: string[] = []
  for (const name of ['DATABASE_URL', 'DATABASE_READ_URL', 'REDIS_URL', 'NATS_URL'] as const) {
    const url = env[name]
    if (url === undefined || !Value.Check(EnvironmentSchema.properties[name], url)) continue // a wrong scheme is reported above
    const example =
      name === 'REDIS_URL'
        ? 'redis://user:password@host:6379'
        : name === 'NATS_URL'
          ? 'nats://host:4222'
          : 'postgres://user:password@host:5432/database'
    if (!URL.canParse(url))
      problems.push(`${name}: is not a valid URL such as ${example} (got ${shownValue(name, url)})`)
  }
  if (env.DATABASE_READ_URL !== undefined && env.DATABASE_URL === undefined) {
    problems.push(
      'DATABASE_READ_URL needs DATABASE_URL: a read replica is for PostgreSQL, and the embedded database (DATA_DIR) has none; set DATABASE_URL to the primary, or leave DATABASE_READ_URL out',
    )
  }
  const external = [env.AUTH_EXTERNAL_ISSUER, env.AUTH_EXTERNAL_AUDIENCE, env.AUTH_EXTERNAL_JWKS_URL]
  if (external.some(Boolean) && !external.every(Boolean)) {
    problems.push('AUTH_EXTERNAL_ISSUER, AUTH_EXTERNAL_AUDIENCE and AUTH_EXTERNAL_JWKS_URL must be set together')
  }
  for (const entry of trustedProxiesOf(env.TRUST_PROXY)) {
    if (!isAddressOrRange(entry))
      problems.push(
        `TRUST_PROXY: "${entry.slice(0, 60)}" is not an IP address or CIDR range such as 10.0.0.0/8 or 192.0.2.7`,
      )
  }
  for (const cidr of env.WEBHOOK_ALLOWED_CIDRS?.split(',') ?? []) {
    if (!isCidr(cidr))
      problems.push(
        `WEBHOOK_ALLOWED_CIDRS: ${JSON.stringify(cidr)} is not a CIDR block such as 10.20.0.0/16 or fd00:1::/64`,
      )
  }
  if (env.HTTP_HEADERS_TIMEOUT_SECONDS > env.HTTP_REQUEST_TIMEOUT_SECONDS) {
    problems.push('HTTP_HEADERS_TIMEOUT_SECONDS must not be larger than HTTP_REQUEST_TIMEOUT_SECONDS')
  }
  if (env.LIMIT_DECODED_BODY_BYTES < env.LIMIT_WIRE_BODY_BYTES) {
    problems.push('LIMIT_DECODED_BODY_BYTES must not be smaller than LIMIT_WIRE_BODY_BYTES')
  }
  if ((env.CONSOLE_OIDC_CLIENT_ID || env.CONSOLE_OIDC_CLIENT_SECRET) && !env.CONSOLE_OIDC_ISSUER) {
    problems.push('CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_CLIENT_SECRET need CONSOLE_OIDC_ISSUER')
  }
  if (env.CONSOLE_OIDC_ISSUER && !env.CONSOLE_OIDC_CLIENT_ID) {
    problems.push(
      'CONSOLE_OIDC_ISSUER needs CONSOLE_OIDC_CLIENT_ID (and CONSOLE_OIDC_CLIENT_SECRET for a confidential client)',
    )
  }
  if (env.SERVICE_MODE === 'production' && env.CONSOLE_OIDC_ISSUER?.startsWith('http://')) {
    problems.push('CONSOLE_OIDC_ISSUER must be https in production (the console trusts what the issuer answers)')
  }
  if (env.SERVICE_MODE === 'production' && env.CONSOLE_OIDC_ISSUER && !env.CONSOLE_SESSION_KEY) {
    problems.push(
      'SERVICE_MODE=production with a console (CONSOLE_OIDC_ISSUER) needs CONSOLE_SESSION_KEY (64 hexadecimal digits, the same in every API process)',
    )
  }
  return problems
}

function trustedProxiesOf(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
}

/**
 * An address or a CIDR range, nothing looser: Fastify would also take `true` or a hop count, which
 * believe whatever X-Forwarded-For a client writes and so let it choose its own rate-limit allowance.
 */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  if (!/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (family === 4 ? 32 : 128)
}

/** A CIDR block (an address with its prefix length): what WEBHOOK_ALLOWED_CIDRS lists. */
function isCidr(cidr: string): boolean {
  return cidr.includes('/') && isAddressOrRange(cidr)
}

function toConfig(env: Environment, signingKeyPem: string | undefined): Config {
  const publicBaseUrl = (
    env.PUBLIC_BASE_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`
  ).replace(/\/$/, '')
  return {
    mode: env.SERVICE_MODE,
    http: {
      port: env.PORT,
      host: env.HOST,
      publicBaseUrl,
      headersTimeoutSeconds: env.HTTP_HEADERS_TIMEOUT_SECONDS,
      requestTimeoutSeconds: env.HTTP_REQUEST_TIMEOUT_SECONDS,
      keepAliveTimeoutSeconds: env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS,
      trustedProxies: trustedProxiesOf(env.TRUST_PROXY),
    },
    database: env.DATABASE_URL
      ? {
          kind: 'postgres',
          url: env.DATABASE_URL,
          readUrl: env.DATABASE_READ_URL,
          poolSize: env.DATABASE_POOL_SIZE,
          connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
        }
      : {
          kind: 'pglite',
          dataDir: env.DATA_DIR,
          ...(env.EMBEDDED_SHARED_BUFFERS_MB === undefined ? {} : { sharedBuffersMb: env.EMBEDDED_SHARED_BUFFERS_MB }),
        },
    redis: { url: env.REDIS_URL, namespace: env.REDIS_NAMESPACE },
    events: { natsUrl: env.NATS_URL, natsStream: env.NATS_STREAM },
    declarations: { dueSoonDays: env.DECLARATION_DUE_SOON_DAYS },
    audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
    webhooks: {
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE ?? env.SERVICE_MODE !== 'production',
      allowedCidrs: env.WEBHOOK_ALLOWED_CIDRS?.split(',') ?? [],
      allowHttp: env.WEBHOOK_ALLOW_HTTP ?? env.SERVICE_MODE !== 'production',
      timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000,
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map((seconds) =>
        Math.round(Number(seconds) * 1000),
      ),
      rotationOverlapMs: env.WEBHOOK_ROTATION_OVERLAP_HOURS * 3_600_000,
      secretsKey: env.WEBHOOK_SECRETS_KEY ? Buffer.from(env.WEBHOOK_SECRETS_KEY, 'hex') : undefined,
      logRetentionDays: env.WEBHOOK_LOG_RETENTION_DAYS,
    },
    logLevel: env.LOG_LEVEL,
    runWorkers: env.RUN_WORKERS,
    shutdownTimeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS,
    queue: {
      heartbeatSeconds: env.QUEUE_HEARTBEAT_SECONDS,
      superviseIntervalSeconds: env.QUEUE_SUPERVISE_INTERVAL_SECONDS,
      jobsPerQueue: env.QUEUE_JOBS_PER_QUEUE,
      jobsPerRto: env.QUEUE_JOBS_PER_RTO,
    },
    // On the embedded database a chunk's read holds the service's thread: 500 records kept the longest
    // validation statement at 0.4 s where 2,000 took 1.2 to 2.3 s on a loaded machine (bench/results.md).
    validation: {
      chunkSize: env.VALIDATION_CHUNK_SIZE ?? (env.DATABASE_URL ? 2000 : 500),
      resultSliceRows: env.RESULT_SLICE_ROWS === 0 ? null : env.RESULT_SLICE_ROWS,
      setRuleSliceRecords: env.VALIDATION_SET_RULE_SLICE_RECORDS === 0 ? null : env.VALIDATION_SET_RULE_SLICE_RECORDS,
    },
    assessment: {
      sliceRecords: env.ASSESSMENT_SLICE_RECORDS,
      resultSliceRows: env.RESULT_SLICE_ROWS === 0 ? null : env.RESULT_SLICE_ROWS,
      workingCopy: env.ASSESSMENT_WORKING_COPY,
    },
    reconciliation: { sliceRecords: env.RECONCILIATION_SLICE_RECORDS },
    referenceSync: { cacheRecords: env.REFERENCE_SYNC_CACHE_RECORDS },
    auth: {
      tokenTtlSeconds: env.AUTH_TOKEN_TTL_SECONDS,
      issuer: env.AUTH_ISSUER ?? publicBaseUrl,
      audience: env.AUTH_AUDIENCE,
      signingKeyPem,
      clientCacheSeconds: env.AUTH_CLIENT_CACHE_SECONDS,
      external:
        env.AUTH_EXTERNAL_ISSUER && env.AUTH_EXTERNAL_AUDIENCE && env.AUTH_EXTERNAL_JWKS_URL
          ? {
              issuer: env.AUTH_EXTERNAL_ISSUER,
              audience: env.AUTH_EXTERNAL_AUDIENCE,
              jwksUrl: env.AUTH_EXTERNAL_JWKS_URL,
              rtoClaim: env.AUTH_EXTERNAL_RTO_CLAIM,
              clientClaim: env.AUTH_EXTERNAL_CLIENT_CLAIM,
            }
          : undefined,
    },
    limits: {
      wireBodyBytes: env.LIMIT_WIRE_BODY_BYTES,
      decodedBodyBytes: env.LIMIT_DECODED_BODY_BYTES,
      bulkRecords: env.LIMIT_BULK_RECORDS,
      natZipBytes: env.LIMIT_NAT_ZIP_BYTES,
      natFilesBytes: env.LIMIT_NAT_FILES_BYTES,
    },
    rateLimit: { max: env.RATE_LIMIT_MAX, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS },
    workerMetricsPort: env.WORKER_METRICS_PORT,
    metrics: {
      token: env.METRICS_TOKEN,
      required: env.SERVICE_MODE === 'production' || env.METRICS_TOKEN !== undefined,
    },
    console: consoleConfigOf(env),
  }
}

// The built-in identity provider is for development and tests only: production never runs it.
function consoleConfigOf(env: Environment): ConsoleConfig | undefined {
  if (!env.CONSOLE_OIDC_ISSUER && env.SERVICE_MODE === 'production') return undefined
  return {
    identityProvider:
      env.CONSOLE_OIDC_ISSUER && env.CONSOLE_OIDC_CLIENT_ID
        ? {
            kind: 'external',
            issuer: env.CONSOLE_OIDC_ISSUER,
            clientId: env.CONSOLE_OIDC_CLIENT_ID,
            clientSecret: env.CONSOLE_OIDC_CLIENT_SECRET,
          }
        : { kind: 'built-in' },
    scope: env.CONSOLE_OIDC_SCOPE,
    rtoClaim: env.CONSOLE_OIDC_RTO_CLAIM,
    roleClaim: env.CONSOLE_OIDC_ROLE_CLAIM,
    sessionKey: env.CONSOLE_SESSION_KEY ? Buffer.from(env.CONSOLE_SESSION_KEY, 'hex') : undefined,
    sessionIdleSeconds: env.CONSOLE_SESSION_IDLE_SECONDS,
  }
}
