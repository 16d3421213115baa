// Events (issue 33): the outbox every owner of a change writes to in the change's transaction, the
// change feed that reads it, and the relay that publishes it to a broker. Other modules call
// recordEvent; events imports no module.
export { eventRoutes } from './events.routes.ts'
export {
  COLLECTOR_STREAM,
  lastSequences,
  rtoEventsAfter,
  recordClientChange,
  recordEvent,
  toCloudEvent,
  type CloudEvent,
  type NewEvent,
} from './events.service.ts'
export { eventTypes, type EventType } from './event-types.ts'
export { startNatsRelay, type NatsRelay, type NatsRelayOptions } from './nats-relay.ts'
