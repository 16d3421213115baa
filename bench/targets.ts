// The two servers under load, both on loopback with an ephemeral port, and the three routes measured.
//  (A) the real service, built as createService builds it, with the bench route registered on the platform
//      (bearer token, body limits, string rules, validation, metrics, silent logging; no rate limit);
//  (B) a bare Fastify app: no auth, no hooks, the platform's validator compiler only, same schema,
//      same insert, its own database opened the same way;
//  (U) the real service's own Student upload into a transaction batch, on the server of (A).
import Fastify, { type FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createServiceForTests } from '../test/support/service-for-tests.ts'
import { openDatabase, type Db } from '../src/platform/db/database.ts'
import { installValidators } from '../src/platform/http/validation.ts'
import { actorOf } from '../src/platform/auth/authenticate.ts'
import { Scopes } from '../src/platform/auth/scopes.ts'
import {
  BENCH_PATH,
  BenchCreated,
  BenchRecord,
  countBenchRows,
  createBenchTable,
  insertRecord,
  sampleBody,
  truncateBenchTable,
  type BenchTables,
} from './record.ts'
import {
  clearBatchRecords,
  countBatchRecords,
  createBatch,
  invalidStudentBody,
  sampleStudentBody,
  uploadPath,
} from './student.ts'

export interface Target {
  name: 'A' | 'B' | 'U'
  url: string
  /** The route every request posts to. */
  path: string
  /** Headers every request carries (the bearer token for A and U). */
  headers: Record<string, string>
  /** The body every request posts, with UID_PLACEHOLDER where a fresh UUID v4 goes. */
  body: string
  /** A structurally invalid variant of a valid body, which must get 400. */
  invalid(valid: string): string
  /** The database the target writes to. */
  db: Kysely<any>
  /** Removes what the runs wrote, so that every run starts from the same state. */
  reset(): Promise<void>
  /** The records the target has stored since the last reset. */
  count(): Promise<number>
  close(): Promise<void>
}

const benchBody = sampleBody()
const invalidBenchBody = (valid: string) => valid.replace('"reportingYear":2026', '"reportingYear":"2026"')

/** The RTO (B) writes for; (A) writes for the RTO of the token's client. */
const BARE_RTO = 'bench-rto'

// A fresh schema object per route, so whatever route hooks add to one never reaches the other.
const routeSchema = () => ({ body: BenchRecord, response: { 201: BenchCreated } })

function benchTables(db: Db): Kysely<BenchTables> {
  return db.withTables<BenchTables>()
}

export async function startService(env: Record<string, string>): Promise<Target> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const service = await createServiceForTests(
    config,
    { workers: false }, // queue workers poll in the background; the request path is what is measured
    {
      extraRoutes: (app, serviceDb) => {
        const db = benchTables(serviceDb)
        app.post(BENCH_PATH, { config: { scope: Scopes.report }, schema: routeSchema() }, async (request, reply) => {
          const record = request.body as BenchRecord
          await insertRecord(db, actorOf(request).rto, record)
          return reply.code(201).send({ recordUid: record.recordUid })
        })
      },
    },
  )
  try {
    await createBenchTable(service.database.db)
    const url = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const token = await fetchToken(url)
    const db = service.database.db
    return {
      name: 'A',
      url,
      path: BENCH_PATH,
      headers: { authorization: `Bearer ${token}` },
      body: benchBody,
      invalid: invalidBenchBody,
      db,
      reset: () => truncateBenchTable(db),
      count: () => countBenchRows(db),
      close: () => service.close(),
    }
  } catch (error) {
    await service.close()
    throw error
  }
}

export async function startBare(env: Record<string, string>): Promise<Target> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const database = await openDatabase(config.database)
  let app: FastifyInstance | undefined
  try {
    await createBenchTable(database.db)
    const db = benchTables(database.db)
    app = Fastify()
    installValidators(app)
    app.post(BENCH_PATH, { schema: routeSchema() }, async (request, reply) => {
      const record = request.body as BenchRecord
      await insertRecord(db, BARE_RTO, record)
      return reply.code(201).send({ recordUid: record.recordUid })
    })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const server = app
    return {
      name: 'B',
      url,
      path: BENCH_PATH,
      headers: {},
      body: benchBody,
      invalid: invalidBenchBody,
      db: database.db,
      reset: () => truncateBenchTable(database.db),
      count: () => countBenchRows(database.db),
      close: async () => {
        await server.close()
        await database.close()
      },
    }
  } catch (error) {
    await app?.close()
    await database.close()
    throw error
  }
}

/**
 * (U) on the running service (A): the demo client's Student upload into one transaction batch,
 * created here. Shares A's server, token and database; A's close() closes it.
 */
export async function startUpload(service: Target): Promise<Target> {
  if (service.name !== 'A') throw new Error('the upload target runs on the real service (A)')
  const token = await createBatch(service.url, service.headers)
  return {
    name: 'U',
    url: service.url,
    path: uploadPath(token),
    headers: service.headers,
    body: sampleStudentBody(),
    invalid: invalidStudentBody,
    db: service.db,
    reset: () => clearBatchRecords(service.db, token),
    count: () => countBatchRecords(service.db, token),
    close: async () => {},
  }
}

async function fetchToken(baseUrl: string): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'demo-rto-1',
    client_secret: 'demo-secret-1',
  })
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', body, signal: AbortSignal.timeout(10_000) })
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}
