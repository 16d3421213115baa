// SQL for the event outbox. Every statement is scoped by the RTO the events belong to.
import { sql, type Selectable } from 'kysely'
import type { Executor, Tx } from '../../platform/db/database.ts'

export interface EventOutboxTable {
  rto_id: string
  sequence: string
  event_id: string
  type: string
  subject: string
  time: Date
  jurisdiction: string | null
  reporting_period: number | null
  data: unknown
}

export interface EventStreamTable {
  rto_id: string
  last_sequence: string
}

export interface EventRelayPositionTable {
  rto_id: string
  relay: string
  last_sequence: string
  updated_at: Date
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    event_outbox: EventOutboxTable
    event_stream: EventStreamTable
    event_relay_position: EventRelayPositionTable
  }
}

export type EventRow = Selectable<EventOutboxTable>

export interface EventToInsert {
  rto: string
  eventId: string
  type: string
  subject: string
  jurisdiction: string | null
  period: number | null
  data: unknown
}

/**
 * Inserts the event with the RTO's next sequence number, in one statement. Taking the number updates
 * the RTO's event_stream row, which stays locked until the transaction ends: another transaction of
 * the RTO that records an event waits here until this one commits or rolls back, so numbers commit in
 * order and a rolled-back number is taken again. Callers record their event last in the transaction,
 * after every other lock they take, so the wait is short and no lock is taken while holding this one.
 */
export async function insertEvent(tx: Tx, event: EventToInsert): Promise<{ sequence: string; time: Date }> {
  const result = await sql<{ sequence: string; time: Date }>`
    WITH next AS (
      INSERT INTO event_stream AS s (rto_id, last_sequence) VALUES (${event.rto}, 1)
      ON CONFLICT (rto_id) DO UPDATE SET last_sequence = s.last_sequence + 1
      RETURNING s.last_sequence
    )
    INSERT INTO event_outbox (rto_id, sequence, event_id, type, subject, jurisdiction, reporting_period, data)
    SELECT ${event.rto}, next.last_sequence, ${event.eventId}::uuid, ${event.type}, ${event.subject},
           ${event.jurisdiction}, ${event.period}::int, ${JSON.stringify(event.data)}::jsonb
      FROM next
    RETURNING sequence::text AS sequence, time`.execute(tx)
  return result.rows[0]!
}

const EVENT_COLUMNS = [
  'rto_id',
  sql<string>`sequence::text`.as('sequence'),
  sql<string>`event_id::text`.as('event_id'),
  'type',
  'subject',
  'time',
  'jurisdiction',
  'reporting_period',
  'data',
] as const

/** The RTO's events numbered after `after`, in order, at most `limit`. */
export async function eventsAfter(db: Executor, rto: string, after: bigint, limit: number): Promise<EventRow[]> {
  return (
    db
      .selectFrom('event_outbox')
      .select(EVENT_COLUMNS)
      .where('rto_id', '=', rto)
      .where('event_outbox.sequence', '>', after.toString())
      // Qualified: a bare name would order by the selected text column of the same name.
      .orderBy('event_outbox.sequence')
      .limit(limit)
      .execute()
  )
}

/** RTOs with events a relay has not published yet, with where it got to (0: nothing yet). */
export async function rtosBehind(
  db: Executor,
  relay: string,
  limit: number,
): Promise<{ rto_id: string; published: string }[]> {
  const result = await sql<{ rto_id: string; published: string }>`
    SELECT s.rto_id, coalesce(p.last_sequence, 0)::text AS published
      FROM event_stream s
      LEFT JOIN event_relay_position p ON p.rto_id = s.rto_id AND p.relay = ${relay}
     WHERE s.last_sequence > coalesce(p.last_sequence, 0)
     ORDER BY s.rto_id
     LIMIT ${limit}`.execute(db)
  return result.rows
}

/** Records that the relay has published the RTO's events up to `sequence` (never moves back). */
export async function advanceRelayPosition(db: Executor, relay: string, rto: string, sequence: string): Promise<void> {
  await sql`
    INSERT INTO event_relay_position AS p (rto_id, relay, last_sequence) VALUES (${rto}, ${relay}, ${sequence}::bigint)
    ON CONFLICT (rto_id, relay) DO UPDATE SET last_sequence = greatest(p.last_sequence, excluded.last_sequence), updated_at = now()`.execute(
    db,
  )
}

/** The last sequence given in each of the RTOs' streams (an RTO with no event yet is left out). */
export async function streamHeads(db: Executor, rtos: readonly string[]): Promise<Map<string, string>> {
  if (rtos.length === 0) return new Map()
  const rows = await db
    .selectFrom('event_stream')
    .select(['rto_id', sql<string>`last_sequence::text`.as('last_sequence')])
    .where('rto_id', 'in', [...rtos])
    .execute()
  return new Map(rows.map((row) => [row.rto_id, row.last_sequence]))
}
