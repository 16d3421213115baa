import Type, { type Static } from 'typebox'
import { Optional, Strict, UtcDateTime } from '../../platform/http/types.ts'
import { named } from '../../platform/http/schema-names.ts'
import { eventTypes } from './event-types.ts'

export const EventFeedQuery = Strict({
  after: Type.String({
    pattern: '^[0-9]{1,18}$',
    default: '0',
    description:
      "a cursor: the sequence of the last event already handled (a page's nextCursor); 0 or left out for the RTO's first event",
  }),
  pageSize: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'events per page, at most 500' }),
})
export type EventFeedQuery = Static<typeof EventFeedQuery>

export const CloudEvent = named(
  'CloudEvent',
  Type.Object(
    {
      specversion: Type.Literal('1.0', { description: 'CloudEvents version' }),
      id: Type.String({ format: 'uuid', description: 'the event id, unique: a consumer seeing it again drops it' }),
      source: Type.String({ description: 'where the event came from: /vet-provider/v1' }),
      type: Type.String({ description: `the kind of change: ${eventTypes.join(', ')}` }),
      subject: Type.String({
        description: 'what changed, as a path under the API, e.g. NSW/transaction-batch/{token}',
      }),
      time: UtcDateTime({ description: 'when the change was made (its transaction)' }),
      datacontenttype: Type.Literal('application/json'),
      rtoid: Type.String({ description: 'the RTO the event belongs to' }),
      sequence: Type.String({
        pattern: '^[0-9]+$',
        description: "the event's place in its RTO's feed, from 1, without gaps between committed events",
      }),
      jurisdiction: Optional(Type.String({ description: 'the jurisdiction, where the change is of one' })),
      reportingperiod: Optional(
        Type.Integer({ description: 'the reporting period {year}{quarter}, where the change is of one' }),
      ),
      data: Type.Record(Type.String(), Type.Unknown(), {
        description: "the change's identifiers and counts (never personal data); fields per type in the guide",
      }),
    },
    {
      description:
        'an event: a CloudEvents 1.0 envelope in JSON with the RTO, sequence, jurisdiction and period extensions',
    },
  ),
)

export const EventFeedPage = named(
  'EventFeedPage',
  Type.Object(
    {
      events: Type.Array(CloudEvent),
      nextCursor: Type.String({
        pattern: '^[0-9]+$',
        description:
          "give it as `after` to read on: the last event's sequence, or the same cursor when no event followed it",
      }),
    },
    { description: "a page of the RTO's events after a cursor, in order" },
  ),
)
