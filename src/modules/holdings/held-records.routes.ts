// GET /vet-provider/v1/held-records: the held dataset's content, one resource type at a time, paged by
// a UID cursor. An extension of the API (docs/decisions.md, "Held records export (issue 19)").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ReadDb } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { HeldRecordsPage, HeldRecordsQuery } from './holdings.schemas.ts'
import { heldRecords } from './held-records.service.ts'

export const heldRecordsRoutes: FastifyPluginAsyncTypebox<{ readDb: ReadDb }> = async (app, { readDb }) => {
  app.get(
    '/held-records',
    {
      config: { scope: Scopes.read, audit: 'held-record.list' },
      schema: {
        tags: ['Held data: export (extension)'],
        summary: "The caller's held records of one type, with their content (an extension, not in the specification)",
        description:
          "The latest submitted version of each held, not voided, record of resourceType of the caller's RTO, in UID order, pageSize at a time. Start without after; give each page's nextAfter as the next after until it is null. Another RTO's records never appear. With resourceUID (at most 100), only those of the records named that are held: what an import reads to carry a continuing enrolment's held lifecycle forward (vetrs nat import). Not part of the specification: its held-data and reconciliation endpoints never return record content, and an RTO needs it to take its data back out (the NAT export).",
        querystring: HeldRecordsQuery,
        response: { 200: HeldRecordsPage },
      },
    },
    async (request) => heldRecords(readDb, actorOf(request), request.query),
  )
}
