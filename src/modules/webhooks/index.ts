// Webhooks (issue 33): endpoints an RTO's clients register for its events, delivered per Standard
// Webhooks by a worker loop that reads the event outbox (through the events module's index), with a
// delivery log and redelivery. Owns webhook_endpoint, webhook_attempt and webhook_redelivery.
export { webhookRoutes } from './webhooks.routes.ts'
export {
  listEndpoints,
  listDeliveries,
  redeliver,
  MAX_ENDPOINTS_PER_RTO,
  webhookSettingsOf,
  type WebhookEndpoint,
  type WebhookDelivery,
  type WebhookSettings,
} from './webhooks.service.ts'
export {
  startWebhookDelivery,
  retryWaitMs,
  type WebhookDeliveryOptions,
  type WebhookDeliveryWorker,
} from './delivery-worker.ts'
export { checkDestination, refusalOf, DestinationRefused, type DestinationPolicy } from './destination.ts'
export { signedHeaders } from './delivery.ts'
export { deleteAttemptsBefore as deleteWebhookAttemptsBefore } from './webhooks.repo.ts'
