// HTTP wiring for webhook endpoints (issue 33): register, list, read, change, delete, rotate the
// secret, the delivery log and redelivery. Reading needs vet:read; every change vet:report. The
// caller's RTO's endpoints only: another RTO's answer 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import type { Db } from '../../platform/db/database.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import {
  CreatedWebhookEndpoint,
  DeliveryParams,
  DeliveryQuery,
  EndpointParams,
  NewWebhookEndpoint,
  RotatedWebhookSecret,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointList,
} from './webhooks.schemas.ts'
import * as service from './webhooks.service.ts'

const tags = ['Webhooks']
const EXTENSION =
  'An extension (issue 33). Deliveries follow Standard Webhooks: a POST of the event (its CloudEvents envelope, as the change feed has it) with webhook-id (the event id), webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the endpoint secret; during a rotation one signature per valid secret). A 2xx answer within 10 seconds is a delivery; anything else is retried with exponential backoff for over a day, the endpoint holding its later events meanwhile (in sequence order), and then the endpoint is disabled with an event au.gov.vetrs.webhook-endpoint.disabled.'
const notFound = problemResponse("No such webhook endpoint for the caller's RTO.")

export const webhookRoutes: FastifyPluginAsyncTypebox<{ db: Db; settings: service.WebhookSettings }> = async (
  app,
  { db, settings },
) => {
  const read = { scope: Scopes.read }
  const write = { scope: Scopes.report }
  // Their answers carry the secret: never kept in the idempotency store (24 hours, in clear).
  const writeWithSecret = { scope: Scopes.report, idempotencyKey: false }

  app.post(
    '/webhook-endpoints',
    {
      config: { ...writeWithSecret, audit: 'webhook.register' },
      schema: {
        tags,
        summary: 'Register a webhook endpoint',
        description: `201 with the endpoint and its signing secret, shown this once. It receives the RTO's events from the next one on. At most ${service.MAX_ENDPOINTS_PER_RTO} endpoints per RTO. A URL the service may not deliver to (not https, or a loopback, private, link-local or reserved address, or a name resolving to one, unless the operator allows it) is a 400 problem naming it. ${EXTENSION}`,
        body: NewWebhookEndpoint,
        response: { 201: CreatedWebhookEndpoint },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createEndpoint(db, actorOf(request), settings, request.body)),
  )

  app.get(
    '/webhook-endpoints',
    {
      config: read,
      schema: {
        tags,
        summary: "The RTO's webhook endpoints",
        description: EXTENSION,
        response: { 200: WebhookEndpointList },
      },
    },
    async (request) => service.listEndpoints(db, actorOf(request)),
  )

  app.get(
    '/webhook-endpoints/:endpointId',
    {
      config: read,
      schema: {
        tags,
        summary: 'A webhook endpoint',
        params: EndpointParams,
        response: { 200: WebhookEndpoint, 404: notFound },
      },
    },
    async (request) => service.getEndpoint(db, actorOf(request), request.params.endpointId),
  )

  app.patch(
    '/webhook-endpoints/:endpointId',
    {
      config: { ...write, audit: 'webhook.change' },
      schema: {
        tags,
        summary: 'Change a webhook endpoint: its URL, event types, description, or whether it is enabled',
        description:
          'Enabling a disabled endpoint starts delivering again from the event it was held at, with its retries afresh.',
        params: EndpointParams,
        body: WebhookEndpointChange,
        response: { 200: WebhookEndpoint, 404: notFound },
      },
    },
    async (request) => service.updateEndpoint(db, actorOf(request), settings, request.params.endpointId, request.body),
  )

  app.delete(
    '/webhook-endpoints/:endpointId',
    {
      config: { ...write, audit: 'webhook.remove' },
      schema: {
        tags,
        summary: 'Delete a webhook endpoint, with its delivery log',
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'deleted' }), 404: notFound },
      },
    },
    async (request, reply) => {
      await service.deleteEndpoint(db, actorOf(request), request.params.endpointId)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/webhook-endpoints/:endpointId/rotate-secret',
    {
      config: { ...writeWithSecret, audit: 'webhook.rotate-secret' },
      schema: {
        tags,
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'A new secret, shown this once. The previous one stays valid until previousSecretValidUntil (24 hours by default): deliveries meanwhile carry a signature with each, so the receiver can change over without a failed delivery.',
        params: EndpointParams,
        response: { 200: RotatedWebhookSecret, 404: notFound },
      },
    },
    async (request) => service.rotateSecret(db, actorOf(request), settings, request.params.endpointId),
  )

  app.get(
    '/webhook-endpoints/:endpointId/deliveries',
    {
      config: read,
      schema: {
        tags,
        summary: "A webhook endpoint's delivery log, newest first",
        description:
          'Each attempt: when, the status answered or why none was, and how long it took. Kept 30 days by default.',
        params: EndpointParams,
        querystring: DeliveryQuery,
        response: { 200: WebhookDeliveryPage, 404: notFound },
      },
    },
    async (request) => service.listDeliveries(db, actorOf(request), request.params.endpointId, request.query),
  )

  app.post(
    '/webhook-endpoints/:endpointId/deliveries/:deliveryId/redeliver',
    {
      config: { ...write, audit: 'webhook.redeliver' },
      schema: {
        tags,
        summary: 'Send the event of a logged delivery again',
        description:
          "202: the event is sent once more, soon, with the same webhook-id (receivers drop what they have handled by it), outside the endpoint's order; the attempt appears in the log with redelivery true.",
        params: DeliveryParams,
        response: { 202: Type.Null({ description: 'queued for redelivery' }), 404: notFound },
      },
    },
    async (request, reply) => {
      await service.redeliver(db, actorOf(request), request.params.endpointId, request.params.deliveryId)
      return reply.code(202).send(null)
    },
  )
}
