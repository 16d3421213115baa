// Routes that exist only in tests: a small protected resource that validates a body and stores it,
// so the platform's security, limits, string rules and paging are tested through real HTTP and a
// real table, before the capability modules arrive.
import Type, { type Static } from 'typebox'
import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Db } from '../../src/platform/db/database.ts'
import { actorOf } from '../../src/platform/auth/authenticate.ts'
import { DateString, Strict, StringEnum, Uuid4, UtcDateTime } from '../../src/platform/http/types.ts'
import { PageQuery, PagedEnvelope } from '../../src/platform/http/paging.ts'
import { offsetOf, toPage } from '../../src/domain/page.ts'
import { NotFoundError } from '../../src/domain/errors.ts'
import { ProblemDetails } from '../../src/platform/http/problem.ts'
import { call } from './test-service.ts'

export const ProbeRecord = Strict({
  recordUID: Uuid4(),
  name: Type.String({ minLength: 1 }),
  studentStatus: StringEnum(['Registered', 'Deferred', 'Cancelled', 'Commenced'] as const),
  startDate: DateString(),
  changedAt: Type.Optional(UtcDateTime()),
  count: Type.Optional(Type.Integer()),
  locations: Type.Optional(Type.Array(Strict({ deliveryLocationUID: Uuid4(), note: Type.Optional(Type.String()) }))),
})
type ProbeRecord = Static<typeof ProbeRecord>

async function ensureTable(db: Db): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS probe_record (rto_id text NOT NULL, record_uid uuid NOT NULL, body jsonb NOT NULL, PRIMARY KEY (rto_id, record_uid))`.execute(
    db,
  )
}

export function registerProbeRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  let tableReady: Promise<void> | undefined
  const table = () => (tableReady ??= ensureTable(db))

  app.post(
    '/probe/records',
    {
      config: { scope: 'vet:report' },
      schema: { body: ProbeRecord, response: { 201: ProbeRecord, '4xx': ProblemDetails } },
    },
    async (request, reply) => {
      await table()
      const record = request.body
      await sql`INSERT INTO probe_record (rto_id, record_uid, body) VALUES (${actorOf(request).rto}, ${record.recordUID}, ${JSON.stringify(record)}::jsonb)
              ON CONFLICT (rto_id, record_uid) DO UPDATE SET body = excluded.body`.execute(db)
      return reply.code(201).send(record)
    },
  )

  app.get(
    '/probe/records',
    {
      config: { scope: 'vet:read' },
      schema: { querystring: PageQuery, response: { 200: PagedEnvelope(ProbeRecord, 'probe records') } },
    },
    async (request) => {
      await table()
      const query = request.query
      const rto = actorOf(request).rto
      const total = await sql<{
        count: string
      }>`SELECT count(*) AS count FROM probe_record WHERE rto_id = ${rto}`.execute(db)
      const rows = await sql<{
        body: ProbeRecord
      }>`SELECT body FROM probe_record WHERE rto_id = ${rto} ORDER BY record_uid LIMIT ${query.pageSize} OFFSET ${offsetOf(query)}`.execute(
        db,
      )
      return toPage(
        rows.rows.map((row) => row.body),
        Number(total.rows[0]?.count ?? 0),
        query,
      )
    },
  )

  app.get(
    '/probe/records/:recordUID',
    {
      config: { scope: 'vet:read' },
      schema: { params: Strict({ recordUID: Uuid4() }), response: { 200: ProbeRecord, '4xx': ProblemDetails } },
    },
    async (request) => {
      await table()
      const rows = await sql<{
        body: ProbeRecord
      }>`SELECT body FROM probe_record WHERE rto_id = ${actorOf(request).rto} AND record_uid = ${request.params.recordUID}`.execute(
        db,
      )
      if (!rows.rows[0]) throw new NotFoundError('No such record for this RTO.')
      return rows.rows[0].body
    },
  )

  // A statement the database refuses, with a value a person would not want logged both among its
  // parameters (PGlite attaches them to the error) and in the refusal's detail (a unique violation's
  // "Key (...)=(...)" on both databases).
  app.post(
    '/probe/database-refusal',
    { config: { scope: 'vet:report' }, schema: { body: Strict({ familyName: Type.String({ maxLength: 100 }) }) } },
    async (request) => {
      await table()
      const uid = '00000000-0000-4000-8000-000000000001'
      const body = JSON.stringify({ familyName: request.body.familyName })
      const insert = sql`INSERT INTO probe_record (rto_id, record_uid, body) VALUES (${request.body.familyName}, ${uid}, ${body}::jsonb)`
      await db.transaction().execute(async (tx) => {
        await insert.execute(tx)
        await insert.execute(tx) // the same key again: refused, and rolled back with the first
      })
      return {}
    },
  )

  app.get('/probe/boom', { config: { scope: 'vet:read' } }, async () => {
    throw new Error('internal detail that must never reach a client')
  })
}

export const validRecord = (overrides: Partial<ProbeRecord> = {}): ProbeRecord => ({
  recordUID: '3f2b6c1e-8d4a-4b7e-9c21-5a6d7e8f9a0b',
  name: 'Intro to welding',
  studentStatus: 'Registered',
  startDate: '2026-02-03',
  ...overrides,
})

/** How many probe records the caller's RTO has stored (through GET /probe/records). */
export async function storedProbeRecords(baseUrl: string, token: string): Promise<number> {
  return (await call(baseUrl, 'GET', '/probe/records', { token })).json.numberOfResults
}
