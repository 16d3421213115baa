// Webhook endpoints, the use cases a client calls: register, list, read, change, delete, rotate the
// secret, read the delivery log, ask for an event to be sent again. Scoped to the caller's RTO: another
// RTO's endpoint does not exist for it (404).
import { randomUUID } from 'node:crypto'
import type { WebhookConfig } from '../../config/config.ts'
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { NotFoundError, StructuralError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { lastSequences } from '../events/index.ts'
import { checkDestination, DestinationRefused, type DestinationPolicy } from './destination.ts'
import { generateWebhookSecret, seal } from './secret-box.ts'
import * as repo from './webhooks.repo.ts'

/** Endpoints one RTO may register. */
export const MAX_ENDPOINTS_PER_RTO = 20

export interface WebhookSettings {
  policy: DestinationPolicy
  /** Seals stored secrets; undefined: stored unsealed. */
  secretsKey: Buffer | undefined
  /** How long the previous secret stays valid after a rotation. */
  rotationOverlapMs: number
}

export interface WebhookEndpoint {
  endpointId: string
  url: string
  description: string
  /** Empty: every type. */
  eventTypes: string[]
  enabled: boolean
  /** Why it is disabled: `failing` (its retries ran out) or `client` (the client disabled it); null when enabled. */
  disabledReason: 'failing' | 'client' | null
  disabledAt: string | null
  /** Until when the secret before the last rotation is valid too (deliveries carry both signatures); null when none. */
  previousSecretValidUntil: string | null
  /** The sequence of the RTO's last event handled (delivered or not of a type asked for). */
  deliveredThrough: string
  /** Failed attempts at the event being held (0 when none is). */
  failedAttempts: number
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
}

export interface WebhookDelivery {
  deliveryId: string
  eventId: string
  eventSequence: string
  eventType: string
  attempt: number
  redelivery: boolean
  attemptedAt: string
  succeeded: boolean
  statusCode: number | null
  error: string | null
  latencyMs: number
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())

export function toEndpoint(row: repo.EndpointRow): WebhookEndpoint {
  const previousValid = row.previous_secret_until !== null && new Date(row.previous_secret_until).getTime() > Date.now()
  return {
    endpointId: row.endpoint_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason: row.disabled_reason as WebhookEndpoint['disabledReason'],
    disabledAt: iso(row.disabled_at),
    previousSecretValidUntil: previousValid ? iso(row.previous_secret_until) : null,
    deliveredThrough: row.position,
    failedAttempts: row.failed_attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  }
}

function toDelivery(row: repo.AttemptRow): WebhookDelivery {
  return {
    deliveryId: row.attempt_id,
    eventId: row.event_id,
    eventSequence: row.event_sequence,
    eventType: row.event_type,
    attempt: row.attempt,
    redelivery: row.redelivery,
    attemptedAt: iso(row.attempted_at)!,
    succeeded: row.succeeded,
    statusCode: row.status_code,
    error: row.error,
    latencyMs: row.latency_ms,
  }
}

async function checkedUrl(url: string, settings: WebhookSettings): Promise<string> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new StructuralError([{ accessPath: '$.url', message: 'must be an absolute URL' }])
  }
  try {
    await checkDestination(parsed, settings.policy)
  } catch (error) {
    if (error instanceof DestinationRefused)
      throw new StructuralError([{ accessPath: '$.url', message: error.message }])
    throw error
  }
  return parsed.href
}

const uniqueTypes = (types: readonly string[]) => [...new Set(types)].sort()

function notFound(endpointId: string): NotFoundError {
  return new NotFoundError(`No webhook endpoint ${endpointId} for this RTO.`)
}

export async function createEndpoint(
  db: Db,
  actor: Actor,
  settings: WebhookSettings,
  input: { url: string; eventTypes?: string[] | undefined; description?: string | undefined },
): Promise<WebhookEndpoint & { secret: string }> {
  const url = await checkedUrl(input.url, settings)
  const secret = generateWebhookSecret()
  const row = await db.transaction().execute(async (tx) => {
    if ((await repo.countEndpoints(tx, actor.rto)) >= MAX_ENDPOINTS_PER_RTO)
      throw new StructuralError(
        [{ accessPath: '$', message: `an RTO may register at most ${MAX_ENDPOINTS_PER_RTO} webhook endpoints` }],
        `This RTO has ${MAX_ENDPOINTS_PER_RTO} webhook endpoints already: delete one first.`,
      )
    // Deliveries start with the RTO's next event: what happened before the endpoint is in the feed.
    const heads = await lastSequences(tx, [actor.rto])
    return repo.insertEndpoint(tx, {
      endpointId: randomUUID(),
      rto: actor.rto,
      url,
      description: input.description ?? '',
      eventTypes: uniqueTypes(input.eventTypes ?? []),
      secret: seal(secret, settings.secretsKey),
      position: heads.get(actor.rto) ?? '0',
      createdBy: actor.clientId,
    })
  })
  return { ...toEndpoint(row), secret }
}

export async function listEndpoints(db: Db, actor: Actor): Promise<{ endpoints: WebhookEndpoint[] }> {
  return { endpoints: (await repo.listEndpoints(db, actor.rto)).map(toEndpoint) }
}

export async function getEndpoint(db: Db, actor: Actor, endpointId: string): Promise<WebhookEndpoint> {
  const row = await repo.findEndpoint(db, actor.rto, endpointId)
  if (!row) throw notFound(endpointId)
  return toEndpoint(row)
}

export async function updateEndpoint(
  db: Db,
  actor: Actor,
  settings: WebhookSettings,
  endpointId: string,
  change: {
    url?: string | undefined
    eventTypes?: string[] | undefined
    description?: string | undefined
    enabled?: boolean | undefined
  },
): Promise<WebhookEndpoint> {
  const url = change.url === undefined ? undefined : await checkedUrl(change.url, settings)
  const row = await repo.updateEndpoint(db, actor.rto, endpointId, {
    ...(url === undefined ? {} : { url }),
    ...(change.description === undefined ? {} : { description: change.description }),
    ...(change.eventTypes === undefined ? {} : { eventTypes: uniqueTypes(change.eventTypes) }),
    ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
  })
  if (!row) throw notFound(endpointId)
  return toEndpoint(row)
}

export async function deleteEndpoint(db: Db, actor: Actor, endpointId: string): Promise<void> {
  if (!(await repo.deleteEndpoint(db, actor.rto, endpointId))) throw notFound(endpointId)
}

/**
 * A new secret, shown this once; the one it replaces stays valid (deliveries are signed with both)
 * for the rotation overlap, so the receiver can change over without a failed delivery.
 */
export async function rotateSecret(
  db: Db,
  actor: Actor,
  settings: WebhookSettings,
  endpointId: string,
): Promise<{ secret: string; previousSecretValidUntil: string }> {
  const secret = generateWebhookSecret()
  const until = new Date(Date.now() + settings.rotationOverlapMs)
  const row = await repo.rotateEndpointSecret(db, actor.rto, endpointId, seal(secret, settings.secretsKey), until)
  if (!row) throw notFound(endpointId)
  return { secret, previousSecretValidUntil: until.toISOString() }
}

export async function listDeliveries(
  db: Db,
  actor: Actor,
  endpointId: string,
  query: PageQuery,
): Promise<Page<WebhookDelivery>> {
  if (!(await repo.findEndpoint(db, actor.rto, endpointId))) throw notFound(endpointId)
  const rows = await repo.listAttempts(db, actor.rto, endpointId, query.pageSize, offsetOf(query))
  const count = await repo.countAttempts(db, actor.rto, endpointId)
  return toPage(rows.map(toDelivery), count, query)
}

/** Asks for the event of a logged delivery to be sent again (once, by the delivery worker, soon). */
export async function redeliver(db: Db, actor: Actor, endpointId: string, deliveryId: string): Promise<void> {
  if (!(await repo.findEndpoint(db, actor.rto, endpointId))) throw notFound(endpointId)
  const attempt = await repo.findAttempt(db, actor.rto, endpointId, deliveryId)
  if (!attempt) throw new NotFoundError(`No delivery ${deliveryId} in the log of webhook endpoint ${endpointId}.`)
  await repo.requestRedelivery(db, actor.rto, endpointId, attempt.event_sequence)
}

/** The settings the API and the worker use, from the configuration (WEBHOOK_*). */
export function webhookSettingsOf(config: WebhookConfig): WebhookSettings {
  return {
    policy: { allowPrivate: config.allowPrivate, allowHttp: config.allowHttp, allowedCidrs: config.allowedCidrs },
    secretsKey: config.secretsKey,
    rotationOverlapMs: config.rotationOverlapMs,
  }
}
