// An RTO's webhook endpoints (issue 33): their state (enabled, or disabled because their retries ran
// out or a client disabled them), each one's delivery log, and sending an event again. Reading is
// for the RTO's people and operators; redelivering for the RTO's people who report (as the API's
// vet:report). Endpoints are managed by the RTO's SMS (API, SDK, CLI); the console shows them.
import type { FastifyPluginAsync } from 'fastify'
import { NotFoundError } from '../../domain/errors.ts'
import { listDeliveries, listEndpoints, redeliver } from '../webhooks/index.ts'
import { canReport } from './console-people.ts'
import { renderPage } from './console.views.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { PagedQuery, readInput } from './console-input.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, rtoPath, rtoPersonOf } from './page-kit.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DELIVERIES_PER_PAGE = 25

type EndpointParams = { rto: string; endpointId: string }

function endpointIdOf(params: EndpointParams): string {
  if (!UUID.test(params.endpointId)) throw new NotFoundError('No such webhook endpoint.')
  return params.endpointId.toLowerCase()
}

export const webhookPages: FastifyPluginAsync<ConsoleDependencies> = async (app, { db }) => {
  const page = { ...pageRoute, preHandler: only.rtoReaders }
  const change = { ...formRoute, preHandler: [app.csrfProtection, only.rtoReporters] }

  app.get<{ Params: { rto: string } }>('/rto/:rto/webhooks', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const { endpoints } = await listEndpoints(db, who.actor)
    const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: webhooks`, who.rto)
    return html(reply, renderPage('webhooks', { ...frame, current: 'webhooks' }, { endpoints }))
  })

  app.get<{ Params: EndpointParams }>('/rto/:rto/webhooks/:endpointId', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const endpointId = endpointIdOf(request.params)
    const { endpoints } = await listEndpoints(db, who.actor)
    const endpoint = endpoints.find((e) => e.endpointId === endpointId)
    if (!endpoint) throw new NotFoundError('No such webhook endpoint for this RTO.')
    const pageNumber = readInput(PagedQuery, request.query).page ?? 1
    const deliveries = await listDeliveries(db, who.actor, endpointId, { pageNumber, pageSize: DELIVERIES_PER_PAGE })
    const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: webhook deliveries`, who.rto)
    return html(
      reply,
      renderPage(
        'webhook-deliveries',
        { ...frame, current: 'webhooks' },
        { endpoint, page: deliveries, canRedeliver: canReport(who.user) },
      ),
    )
  })

  app.post<{ Params: EndpointParams & { deliveryId: string } }>(
    '/rto/:rto/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    audited(change, 'webhook.redeliver'),
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const endpointId = endpointIdOf(request.params)
      if (!UUID.test(request.params.deliveryId)) throw new NotFoundError('No such delivery.')
      await redeliver(db, who.actor, endpointId, request.params.deliveryId.toLowerCase())
      request.session.set('flash', {
        kind: 'success',
        text: 'The event will be sent again shortly; the attempt appears at the top of the log.',
      })
      return reply.redirect(rtoPath(who.rto, `webhooks/${encodeURIComponent(endpointId)}`), 303)
    },
  )
}
