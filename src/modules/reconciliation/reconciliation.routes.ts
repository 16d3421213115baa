// HTTP wiring for reconciliation (spec: Endpoints, Reconciliation). Scope vet:read. Every endpoint reads
// the read handle: the replica when there is one (docs/decisions.md, "Read routing (issue 21)").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ReadDb } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import {
  ReconciliationPage,
  RelatedParams,
  SearchByPeriodQuery,
  UidMatchRequest,
  UidMatchResponse,
} from './reconciliation.schemas.ts'
import * as service from './reconciliation.service.ts'

const tags = ['Reconciliation']

export const reconciliationRoutes: FastifyPluginAsyncTypebox<{ readDb: ReadDb }> = async (app, { readDb: db }) => {
  const config = { scope: Scopes.read }

  app.get(
    '/search-by-period',
    {
      config: { ...config, audit: 'held-record.search' },
      schema: {
        tags,
        summary: 'Held records of one type by reporting period or activity date range',
        description:
          'Give reportingPeriods (1 to 10 codes, comma-separated) or activityDateFrom and activityDateTo. Returns the latest version of each held, not voided record of resourceType whose studentActivityDate falls in them, newest first then by UID.',
        querystring: SearchByPeriodQuery,
        response: { 200: ReconciliationPage },
      },
    },
    async (request) => service.searchByPeriod(db, actorOf(request), request.query),
  )

  app.post(
    '/uid-match',
    {
      config: { ...config, idempotencyKey: false, audit: 'held-record.match' }, // a read: safe to repeat without a key
      schema: {
        tags,
        summary: 'Whether each of up to 500 UIDs is held for a reporting period',
        description:
          'One item per requested UID, in request order. resourceInSubmission is true when the record is held, not voided, and its studentActivityDate falls in the reporting period. Duplicate or malformed UIDs are 400.',
        body: UidMatchRequest,
        response: { 200: UidMatchResponse },
      },
    },
    async (request) => service.uidMatch(db, actorOf(request), request.body),
  )

  app.get(
    '/:resourceType/:uid/related-resources',
    {
      config: { ...config, audit: 'held-record.related' },
      schema: {
        tags,
        summary: 'Held records related to a student, program enrolment or subject enrolment',
        description:
          "The related top-level records (spec: related-resources table and traversal) as reconciliation items, newest studentActivityDate first. Another starting type is 400; a UID not in submission for the caller's RTO is 404.",
        params: RelatedParams,
        querystring: PageQuery,
        response: { 200: ReconciliationPage },
      },
    },
    async (request) =>
      service.relatedResources(db, actorOf(request), request.params.resourceType, request.params.uid, request.query),
  )
}
