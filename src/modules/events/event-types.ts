// The kinds of event the service records, as CloudEvents `type` values. A new kind is added here, with
// its data described in docs/decisions.md ("Events: the outbox and the change feed (issue 33)").
export const EVENT_TYPE_PREFIX = 'au.gov.vetrs.'

export const eventTypes = [
  'au.gov.vetrs.batch.created',
  'au.gov.vetrs.batch.discarded',
  'au.gov.vetrs.batch.validated',
  'au.gov.vetrs.batch.submitted',
  'au.gov.vetrs.records.voided',
  'au.gov.vetrs.batch.reconciled',
  'au.gov.vetrs.assessment.completed',
  'au.gov.vetrs.declaration.made',
  'au.gov.vetrs.declaration.superseded',
  'au.gov.vetrs.declaration.due-soon',
  'au.gov.vetrs.declaration.overdue',
  'au.gov.vetrs.reference-data.published',
  'au.gov.vetrs.client.registered',
  'au.gov.vetrs.client.secret-rotated',
  'au.gov.vetrs.client.disabled',
  'au.gov.vetrs.client.enabled',
  'au.gov.vetrs.webhook-endpoint.disabled',
] as const

export type EventType = (typeof eventTypes)[number]

/** The CloudEvents `source` of every event: the API the change was made through. */
export const EVENT_SOURCE = '/vet-provider/v1'
