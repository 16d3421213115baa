// SQL for webhook endpoints, their delivery log and redelivery requests. Every statement a client's
// request reaches is scoped by the caller's RTO; the delivery worker's by the endpoint it has claimed.
import { sql, type Generated, type Selectable } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'

export interface WebhookEndpointTable {
  endpoint_id: string
  rto_id: string
  url: string
  description: string
  event_types: string[]
  enabled: Generated<boolean>
  disabled_reason: string | null
  disabled_at: Date | null
  secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  position: string
  failed_attempts: Generated<number>
  next_attempt_at: Date | null
  lease_until: Date | null
  created_by: string
  created_at: Generated<Date>
  updated_at: Generated<Date>
}

export interface WebhookAttemptTable {
  attempt_id: string
  endpoint_id: string
  rto_id: string
  event_id: string
  event_sequence: string
  event_type: string
  attempt: number
  redelivery: boolean
  attempted_at: Generated<Date>
  succeeded: boolean
  status_code: number | null
  error: string | null
  latency_ms: number
}

export interface WebhookRedeliveryTable {
  rto_id: string
  endpoint_id: string
  event_sequence: string
  requested_at: Generated<Date>
  lease_until: Date | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    webhook_endpoint: WebhookEndpointTable
    webhook_attempt: WebhookAttemptTable
    webhook_redelivery: WebhookRedeliveryTable
  }
}

export type EndpointRow = Selectable<WebhookEndpointTable>
export type AttemptRow = Selectable<WebhookAttemptTable>

const ENDPOINT_COLUMNS = [
  'endpoint_id',
  'rto_id',
  'url',
  'description',
  'event_types',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'secret',
  'previous_secret',
  'previous_secret_until',
  sql<string>`position::text`.as('position'),
  'failed_attempts',
  'next_attempt_at',
  'lease_until',
  'created_by',
  'created_at',
  'updated_at',
] as const

export async function countEndpoints(db: Executor, rto: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoint')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('rto_id', '=', rto)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertEndpoint(
  db: Executor,
  endpoint: {
    endpointId: string
    rto: string
    url: string
    description: string
    eventTypes: string[]
    secret: string
    position: string
    createdBy: string
  },
): Promise<EndpointRow> {
  return db
    .insertInto('webhook_endpoint')
    .values({
      endpoint_id: endpoint.endpointId,
      rto_id: endpoint.rto,
      url: endpoint.url,
      description: endpoint.description,
      event_types: endpoint.eventTypes,
      secret: endpoint.secret,
      position: endpoint.position,
      created_by: endpoint.createdBy,
    })
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function listEndpoints(db: Executor, rto: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoint')
    .select(ENDPOINT_COLUMNS)
    .where('rto_id', '=', rto)
    .orderBy('created_at')
    .orderBy('endpoint_id')
    .execute()
}

export async function findEndpoint(db: Executor, rto: string, endpointId: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoint')
    .select(ENDPOINT_COLUMNS)
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst()
}

export async function updateEndpoint(
  db: Executor,
  rto: string,
  endpointId: string,
  change: {
    url?: string
    description?: string
    eventTypes?: string[]
    /** true: enabled again (retries start afresh with the held event); false: disabled by the client. */
    enabled?: boolean
  },
): Promise<EndpointRow | undefined> {
  let query = db
    .updateTable('webhook_endpoint')
    .set({ updated_at: sql`now()` })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
  if (change.url !== undefined) query = query.set({ url: change.url })
  if (change.description !== undefined) query = query.set({ description: change.description })
  if (change.eventTypes !== undefined) query = query.set({ event_types: change.eventTypes })
  if (change.enabled === true)
    query = query.set({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      failed_attempts: 0,
      next_attempt_at: null,
    })
  if (change.enabled === false)
    query = query.set({ enabled: false, disabled_reason: 'client', disabled_at: sql`now()`, next_attempt_at: null })
  return query.returning(ENDPOINT_COLUMNS).executeTakeFirst()
}

export async function rotateEndpointSecret(
  db: Executor,
  rto: string,
  endpointId: string,
  secret: string,
  previousUntil: Date,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoint')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_until: previousUntil,
      secret,
      updated_at: sql`now()`,
    }))
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirst()
}

export async function deleteEndpoint(db: Executor, rto: string, endpointId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoint')
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function countAttempts(db: Executor, rto: string, endpointId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_attempt')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The endpoint's attempts, newest first. */
export async function listAttempts(
  db: Executor,
  rto: string,
  endpointId: string,
  limit: number,
  offset: number,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhook_attempt')
    .select([
      'attempt_id',
      'endpoint_id',
      'rto_id',
      sql<string>`event_id::text`.as('event_id'),
      sql<string>`event_sequence::text`.as('event_sequence'),
      'event_type',
      'attempt',
      'redelivery',
      'attempted_at',
      'succeeded',
      'status_code',
      'error',
      'latency_ms',
    ])
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .orderBy('attempted_at', 'desc')
    .orderBy('attempt_id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute()
}

export async function findAttempt(
  db: Executor,
  rto: string,
  endpointId: string,
  attemptId: string,
): Promise<{ event_sequence: string } | undefined> {
  return db
    .selectFrom('webhook_attempt')
    .select(sql<string>`event_sequence::text`.as('event_sequence'))
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .where('attempt_id', '=', attemptId)
    .executeTakeFirst()
}

export async function requestRedelivery(
  db: Executor,
  rto: string,
  endpointId: string,
  sequence: string,
): Promise<void> {
  await db
    .insertInto('webhook_redelivery')
    .values({ rto_id: rto, endpoint_id: endpointId, event_sequence: sequence })
    .onConflict((oc) => oc.columns(['rto_id', 'endpoint_id', 'event_sequence']).doNothing())
    .execute()
}

// The delivery worker's statements.

/** Enabled endpoints due for a look (no retry waiting, no other worker holding them), oldest wait first. */
export async function dueEndpoints(
  db: Executor,
  limit: number,
): Promise<{ endpoint_id: string; rto_id: string; position: string }[]> {
  return db
    .selectFrom('webhook_endpoint')
    .select(['endpoint_id', 'rto_id', sql<string>`position::text`.as('position')])
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .orderBy(sql`next_attempt_at NULLS FIRST`)
    .limit(limit)
    .execute()
}

/**
 * Takes the endpoint for `leaseMs` unless another worker holds it or its retry is not due yet; the
 * endpoint as taken. Due is checked here again: a worker that listed the endpoint as due before another
 * worker's attempt failed would otherwise retry at once, ahead of the schedule.
 */
export async function claimEndpoint(
  db: Executor,
  rto: string,
  endpointId: string,
  leaseMs: number,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoint')
    .set({ lease_until: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirst()
}

/** Moves the endpoint past `sequence` (never back) with no failure pending, and extends its lease. */
export async function advanceEndpoint(
  db: Executor,
  rto: string,
  endpointId: string,
  sequence: string,
  leaseMs: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoint')
    .set({
      position: sql`greatest(position, ${sequence}::bigint)`,
      failed_attempts: 0,
      next_attempt_at: null,
      lease_until: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
    })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .execute()
}

/** A failed attempt at the held event: the next one after `waitMs`; the lease is let go. */
export async function scheduleRetry(
  db: Executor,
  rto: string,
  endpointId: string,
  failedAttempts: number,
  waitMs: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoint')
    .set({
      failed_attempts: failedAttempts,
      next_attempt_at: sql`now() + ${`${waitMs} milliseconds`}::interval`,
      lease_until: null,
    })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .execute()
}

/** Disabled after its retries ran out; false when it was changed meanwhile (deleted or disabled). */
export async function disableFailingEndpoint(
  db: Executor,
  rto: string,
  endpointId: string,
  failedAttempts: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoint')
    .set({
      enabled: false,
      disabled_reason: 'failing',
      disabled_at: sql`now()`,
      failed_attempts: failedAttempts,
      next_attempt_at: null,
      lease_until: null,
      updated_at: sql`now()`,
    })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .where('enabled', '=', true)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function releaseEndpoint(db: Executor, rto: string, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoint')
    .set({ lease_until: null })
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .execute()
}

export async function insertAttempt(db: Executor, attempt: Omit<AttemptRow, 'attempted_at'>): Promise<void> {
  await db.insertInto('webhook_attempt').values(attempt).execute()
}

/** Redeliveries asked for and not being sent by another worker, taken for `leaseMs`. */
export async function claimRedeliveries(
  db: Executor,
  limit: number,
  leaseMs: number,
): Promise<{ rto_id: string; endpoint_id: string; event_sequence: string }[]> {
  const result = await sql<{ rto_id: string; endpoint_id: string; event_sequence: string }>`
    UPDATE webhook_redelivery r SET lease_until = now() + ${`${leaseMs} milliseconds`}::interval
     WHERE (r.rto_id, r.endpoint_id, r.event_sequence) IN (
       SELECT rto_id, endpoint_id, event_sequence FROM webhook_redelivery
        WHERE lease_until IS NULL OR lease_until < now()
        ORDER BY requested_at LIMIT ${limit})
       AND (r.lease_until IS NULL OR r.lease_until < now())
    RETURNING r.rto_id, r.endpoint_id::text AS endpoint_id, r.event_sequence::text AS event_sequence`.execute(db)
  return result.rows
}

export async function endpointById(db: Executor, rto: string, endpointId: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoint')
    .select(ENDPOINT_COLUMNS)
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst()
}

export async function deleteRedelivery(db: Executor, rto: string, endpointId: string, sequence: string): Promise<void> {
  await db
    .deleteFrom('webhook_redelivery')
    .where('rto_id', '=', rto)
    .where('endpoint_id', '=', endpointId)
    .where('event_sequence', '=', sequence)
    .execute()
}

/** Housekeeping: attempts logged before the cutoff; how many. */
export async function deleteAttemptsBefore(db: Executor, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('webhook_attempt').where('attempted_at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}
