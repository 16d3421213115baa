// The outbox's use cases: recording an event in the transaction of the change it tells of, and reading
// an RTO's events after a cursor (the change feed). Events are CloudEvents 1.0 in JSON.
import { randomUUID } from 'node:crypto'
import type { Executor, Tx } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { ClientChangeRecorder } from '../../platform/auth/clients.service.ts'
import { EVENT_SOURCE, type EventType } from './event-types.ts'
import * as repo from './events.repo.ts'

/**
 * The stream of events that belong to no RTO (a reference-data release published): numbered like an
 * RTO's, published by the relay, in no RTO's feed. Not a valid RTO identifier, so never one's.
 */
export const COLLECTOR_STREAM = '*'

/** What the owner of a change says happened: the rest of the envelope is the outbox's. */
export interface NewEvent {
  /** The RTO whose feed the event is in; undefined for a collector-wide event (see COLLECTOR_STREAM). */
  rto: string | undefined
  type: EventType
  /** What the event is about, a path under the API: `NSW/transaction-batch/{token}`. */
  subject: string
  jurisdiction?: string | undefined
  /** The reporting period, {year}{quarter}, where the change is of one. */
  period?: number | undefined
  /** Identifiers and counts only: no personal data, no record bodies. */
  data: Record<string, unknown>
}

/**
 * Records the event in the outbox, in the caller's transaction: it commits with the change or not at
 * all. Call it last in the transaction (after every other lock): it takes the RTO's event number,
 * whose lock other event-writing transactions of the RTO wait on until this one ends.
 */
export async function recordEvent(tx: Tx, event: NewEvent): Promise<{ id: string; sequence: string }> {
  const id = randomUUID()
  const { sequence } = await repo.insertEvent(tx, {
    rto: event.rto ?? COLLECTOR_STREAM,
    eventId: id,
    type: event.type,
    subject: event.subject,
    jurisdiction: event.jurisdiction ?? null,
    period: event.period ?? null,
    data: event.data,
  })
  return { id, sequence }
}

/** An event as published: a CloudEvents 1.0 JSON envelope, with the RTO, its sequence and, where they apply, jurisdiction and period. */
export interface CloudEvent {
  specversion: '1.0'
  id: string
  source: string
  type: string
  subject: string
  time: string
  datacontenttype: 'application/json'
  /** Absent on a collector-wide event. */
  rtoid?: string
  sequence: string
  jurisdiction?: string
  reportingperiod?: number
  data: Record<string, unknown>
}

export function toCloudEvent(row: repo.EventRow): CloudEvent {
  return {
    specversion: '1.0',
    id: row.event_id,
    source: EVENT_SOURCE,
    type: row.type,
    subject: row.subject,
    time: new Date(row.time).toISOString(),
    datacontenttype: 'application/json',
    ...(row.rto_id === COLLECTOR_STREAM ? {} : { rtoid: row.rto_id }),
    sequence: row.sequence,
    ...(row.jurisdiction === null ? {} : { jurisdiction: row.jurisdiction }),
    ...(row.reporting_period === null ? {} : { reportingperiod: row.reporting_period }),
    data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Record<string, unknown>,
  }
}

export interface EventPage {
  /** An RTO's events: rtoid always there. */
  events: (CloudEvent & { rtoid: string })[]
  /** Give it as `after` for the next page: the last event's sequence, or `after` again when there was none. */
  nextCursor: string
}

/** The caller's RTO's events after the cursor, in sequence order (the change feed). */
export async function eventsAfter(db: Executor, actor: Actor, after: string, pageSize: number): Promise<EventPage> {
  const rows = await repo.eventsAfter(db, actor.rto, BigInt(after), pageSize)
  const events = rows.map((row) => ({ ...toCloudEvent(row), rtoid: row.rto_id }))
  return { events, nextCursor: events.at(-1)?.sequence ?? BigInt(after).toString() }
}

/**
 * The RTO's events after `after` as CloudEvents, in sequence order, at most `limit`: what a delivery
 * worker (webhooks) reads, the RTO given by the endpoint it delivers to.
 */
export async function rtoEventsAfter(
  db: Executor,
  rto: string,
  after: string,
  limit: number,
): Promise<(CloudEvent & { rtoid: string })[]> {
  const rows = await repo.eventsAfter(db, rto, BigInt(after), limit)
  return rows.map((row) => ({ ...toCloudEvent(row), rtoid: row.rto_id }))
}

/** Each RTO's last event sequence ('0' for an RTO with none yet). */
export async function lastSequences(db: Executor, rtos: readonly string[]): Promise<Map<string, string>> {
  const heads = await repo.streamHeads(db, rtos)
  return new Map(rtos.map((rto) => [rto, heads.get(rto) ?? '0']))
}

/**
 * An API client registered, its secret rotated, disabled or enabled (platform/auth calls it in the
 * change's transaction when the CLI or the console passes it): an event in the client's RTO's feed.
 * Never the secret or its hash.
 */
export const recordClientChange: ClientChangeRecorder = async (tx, change) => {
  await recordEvent(tx, {
    rto: change.rto,
    type: `au.gov.vetrs.client.${change.kind}`,
    subject: `clients/${change.clientId}`,
    data: { clientId: change.clientId, scopes: change.scopes },
  })
}
