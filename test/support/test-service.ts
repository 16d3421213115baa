// Starts a real service on a loopback port for a test file, on the database the run is for:
// TEST_DATABASE=postgres gives each service a fresh PostgreSQL database (created from DATABASE_URL,
// dropped afterwards); otherwise an in-memory PGlite (or a PGlite directory, for restart tests).
// Under npm test both start as copies of the run's migrated template (database-templates.ts).
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../src/config/config.ts'
import type { Service, ServiceOptions } from '../../src/app.ts'
import { startInMemoryDatabasesFrom } from '../../src/platform/db/database.ts'
import { createServiceForTests, type TestHooks } from './service-for-tests.ts'
import { freePort } from './child-service.ts'
import {
  adminQuery,
  copyPgliteTemplateTo,
  pgliteTemplate,
  postgresTemplate,
  withDatabase,
} from './database-templates.ts'

export const onPostgres = process.env.TEST_DATABASE === 'postgres'

if (!onPostgres) startInMemoryDatabasesFrom(await pgliteTemplate())

export interface TestService {
  service: Service
  baseUrl: string
  /** Requests a token for a client (demo clients by default). */
  token(clientId?: string, secret?: string, scope?: string): Promise<string>
  close(): Promise<void>
}

export interface TestDatabase {
  env: Record<string, string>
  drop(): Promise<void>
}

/**
 * A database of its own for one test file: a new PostgreSQL database, or an in-memory PGlite (or the
 * PGlite directory given). It is a copy of the run's template unless `empty` is asked for (a test of
 * what happens to a database nothing has migrated yet).
 */
export async function createTestDatabase(
  dataDir = 'memory://',
  { empty = false }: { empty?: boolean } = {},
): Promise<TestDatabase> {
  if (!onPostgres) {
    if (!empty && dataDir !== 'memory://') await copyPgliteTemplateTo(dataDir)
    // DATABASE_URL is blanked for PGlite so a child process does not inherit the runner's PostgreSQL.
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '' }, drop: async () => {} }
  }
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('TEST_DATABASE=postgres needs DATABASE_URL')
  const name = `vetrs_test_${randomBytes(6).toString('hex')}`
  const template = empty ? undefined : postgresTemplate()
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  return {
    env: { DATABASE_URL: withDatabase(adminUrl, name) },
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}

export async function startTestService(
  options: {
    env?: Record<string, string>
    database?: TestDatabase
    service?: ServiceOptions
    /**
     * Listen on a port chosen before the service starts (the console's built-in identity provider
     * needs its address, PUBLIC_BASE_URL's default, first). A port found free can be taken by another
     * process before the service binds it, so a taken one is given up and another chosen.
     */
    portKnownBeforeStart?: boolean
  } & TestHooks = {},
): Promise<TestService> {
  const database = options.database ?? (await createTestDatabase())
  for (let attempt = 1; ; attempt++) {
    const port = options.portKnownBeforeStart ? String(await freePort()) : '0'
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      PORT: port,
      RATE_LIMIT_MAX: '0',
      AUTH_CLIENT_CACHE_SECONDS: '0',
      REDIS_NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
      ...database.env,
      ...options.env,
    })
    const service = await createServiceForTests(config, options.service, options)
    let address: string
    try {
      address = await service.app.listen({ port: config.http.port, host: '127.0.0.1' })
    } catch (error) {
      await service.close()
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
      if (taken && options.portKnownBeforeStart && attempt < 5) continue
      if (!options.database) await database.drop()
      throw error
    }
    return {
      service,
      baseUrl: address,
      token: (clientId, secret, scope) => tokenFor(address, clientId, secret, scope),
      async close() {
        await service.close()
        if (!options.database) await database.drop()
      },
    }
  }
}

/** A token from the service at baseUrl (a demo client's by default), by client credentials. */
export async function tokenFor(
  baseUrl: string,
  clientId = 'demo-rto-1',
  secret = clientId === 'demo-rto-2' ? 'demo-secret-2' : 'demo-secret-1',
  scope?: string,
): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: secret,
    ...(scope ? { scope } : {}),
  })
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', body })
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** Fetch with a bearer token and a JSON body. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; headers?: Record<string, string>; body?: BodyInit } = {},
) {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body = options.body
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json'
    body = JSON.stringify(options.json)
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, json: text ? safeJson(text) : undefined }
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
