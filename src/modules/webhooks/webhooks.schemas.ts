import Type, { type Static } from 'typebox'
import { Nullable, Optional, StringEnum, Strict, UtcDateTime } from '../../platform/http/types.ts'
import { PagedEnvelope, PageQuery } from '../../platform/http/paging.ts'
import { named } from '../../platform/http/schema-names.ts'
import { eventTypes } from '../events/index.ts'

const Url = Type.String({
  minLength: 8,
  maxLength: 2048,
  description:
    'where events are POSTed: an absolute https URL (http too where the operator allows it); in production never a loopback, private, link-local or other reserved address, nor a name resolving to one',
})
const EventTypes = Type.Array(StringEnum(eventTypes), {
  maxItems: eventTypes.length,
  uniqueItems: true,
  description: 'the event types to deliver; empty or left out: every type',
})
const Description = Type.String({ maxLength: 500, description: 'what the endpoint is for, for people' })

export const EndpointParams = Strict({
  endpointId: Type.String({ format: 'uuid', description: 'the endpoint id' }),
})
export type EndpointParams = Static<typeof EndpointParams>

export const DeliveryParams = Strict({
  endpointId: Type.String({ format: 'uuid', description: 'the endpoint id' }),
  deliveryId: Type.String({ format: 'uuid', description: 'a delivery (attempt) id from the delivery log' }),
})
export type DeliveryParams = Static<typeof DeliveryParams>

export const NewWebhookEndpoint = named(
  'NewWebhookEndpoint',
  Strict(
    { url: Url, eventTypes: Optional(EventTypes), description: Optional(Description) },
    { description: 'an endpoint to register' },
  ),
)
export type NewWebhookEndpoint = Static<typeof NewWebhookEndpoint>

export const WebhookEndpointChange = named(
  'WebhookEndpointChange',
  Strict(
    {
      url: Optional(Url),
      eventTypes: Optional(EventTypes),
      description: Optional(Description),
      enabled: Optional(
        Type.Boolean({
          description:
            'false: no deliveries until enabled again; true: delivering again, starting with the event it was held at (its retries start afresh)',
        }),
      ),
    },
    { description: 'what to change; what is left out stays', minProperties: 1 },
  ),
)
export type WebhookEndpointChange = Static<typeof WebhookEndpointChange>

const endpointProperties = {
  endpointId: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String(), { description: 'the event types delivered; empty: every type' }),
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({
      description:
        'why it is disabled: failing (its retries ran out; an event au.gov.vetrs.webhook-endpoint.disabled says so) or client (a client disabled it); null when enabled',
    }),
  ),
  disabledAt: Nullable(UtcDateTime()),
  previousSecretValidUntil: Nullable(
    UtcDateTime({
      description: 'until then the secret before the last rotation is valid too: deliveries carry both signatures',
    }),
  ),
  deliveredThrough: Type.String({
    pattern: '^[0-9]+$',
    description:
      "the sequence of the RTO's last event this endpoint is done with (delivered, or of a type it did not ask for)",
  }),
  failedAttempts: Type.Integer({ description: 'failed attempts at the event it is held at (0: none)' }),
  nextAttemptAt: Nullable(UtcDateTime({ description: 'when the held event is tried again' })),
  createdAt: UtcDateTime(),
  updatedAt: UtcDateTime(),
}

export const WebhookEndpoint = named(
  'WebhookEndpoint',
  Type.Object(endpointProperties, { description: 'a webhook endpoint of the RTO (never its secret)' }),
)

export const CreatedWebhookEndpoint = named(
  'CreatedWebhookEndpoint',
  Type.Object(
    {
      ...endpointProperties,
      secret: Type.String({
        pattern: '^whsec_',
        description: 'the signing secret (Standard Webhooks, whsec_...): shown this once, keep it',
      }),
    },
    { description: 'the endpoint registered, with its signing secret (shown this once)' },
  ),
)

export const WebhookEndpointList = named(
  'WebhookEndpointList',
  Type.Object({ endpoints: Type.Array(WebhookEndpoint) }, { description: "the RTO's webhook endpoints, oldest first" }),
)

export const RotatedWebhookSecret = named(
  'RotatedWebhookSecret',
  Type.Object(
    {
      secret: Type.String({ pattern: '^whsec_', description: 'the new signing secret: shown this once' }),
      previousSecretValidUntil: UtcDateTime({
        description: 'until then deliveries are signed with the previous secret too',
      }),
    },
    { description: 'a new signing secret' },
  ),
)

export const WebhookDelivery = named(
  'WebhookDelivery',
  Type.Object(
    {
      deliveryId: Type.String({ format: 'uuid', description: 'this attempt; give it to redeliver its event' }),
      eventId: Type.String({ format: 'uuid', description: 'the event sent (its webhook-id)' }),
      eventSequence: Type.String({ pattern: '^[0-9]+$' }),
      eventType: Type.String(),
      attempt: Type.Integer({ description: 'the attempt at this event, from 1 (a redelivery is 1)' }),
      redelivery: Type.Boolean({ description: 'sent again because a client asked' }),
      attemptedAt: UtcDateTime(),
      succeeded: Type.Boolean({ description: 'a 2xx answer came back in time' }),
      statusCode: Nullable(Type.Integer({ description: 'the HTTP status answered; null when none came' })),
      error: Nullable(Type.String({ description: 'why it failed, when it did' })),
      latencyMs: Type.Integer({ description: 'from sending to the answer (or the failure), in milliseconds' }),
    },
    { description: 'one delivery attempt' },
  ),
)

export const DeliveryQuery = PageQuery
export const WebhookDeliveryPage = PagedEnvelope(WebhookDelivery, "an endpoint's delivery attempts, newest first")
