// The only module that reads process.env. Configuration is validated once at start-up; a bad value
// stops the process with every problem listed, never the first one only.
import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import Value from 'typebox/value'
import type { Config, ConsoleConfig } from './config-types.ts'
import { type Environment, EnvironmentSchema } from './environment.ts'
import { shownValue } from './secret-settings.ts'

export type { Config, ConsoleConfig, WebhookConfig } from './config-types.ts'
export { EnvironmentSchema } from './environment.ts'
export { SECRET_SETTINGS, withoutPassword } from './secret-settings.ts'

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
