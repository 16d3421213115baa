// HTTP wiring for the change feed (issue 33): GET /events after a cursor. Scope vet:read; the caller's
// RTO's events only. Read on the primary: the feed is where an SMS catches up, and read-your-writes
// after a change it made matters more than the replica's spare capacity.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import type { Db } from '../../platform/db/database.ts'
import { EventFeedPage, EventFeedQuery } from './events.schemas.ts'
import * as service from './events.service.ts'

export const eventRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/events',
    {
      config: { scope: Scopes.read },
      schema: {
        tags: ['Events'],
        summary: "The RTO's events after a cursor (the change feed)",
        description:
          "An extension (issue 33). Every change that matters (a batch created, discarded, validated, submitted, reconciled; records voided in a submission; an assessment completed; a declaration made or superseded; one of the RTO's API clients registered, its secret rotated, disabled or enabled) is an event, written in the same transaction as the change. This returns the caller's RTO's events whose sequence is after `after`, in sequence order, at most pageSize, and nextCursor: store it once the page is handled and give it as `after` to read on. Delivery is at least once (a reader that stops before storing its cursor reads the page again: drop events by id); an event is never skipped, since an RTO's events commit in sequence order. An empty page means the reader is up to date.",
        querystring: EventFeedQuery,
        response: { 200: EventFeedPage },
      },
    },
    async (request) => service.eventsAfter(db, actorOf(request), request.query.after, request.query.pageSize),
  )
}
