// The chaos run's stream ledger (issue 33, with --nats): the relay publishes the outbox to the
// cluster's own nats-server (JetStream), which the fault injector SIGKILLs and restarts. After the run
// has settled and the relay caught up, every event of each RTO's change feed must be in the stream
// exactly once (the stream drops a repeat of a Nats-Msg-Id within its duplicate window), in the RTO's
// order, and the stream must hold nothing the feeds do not.
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import type { FeedEvent } from './event-checks.ts'

type Rows = <R>(text: string, values?: unknown[]) => Promise<R[]>
type Add = (name: string, failures: unknown[], detail: string) => void

export const STREAM = 'VETRS_EVENTS'

/** Waits (bounded) until the relay's position of each RTO is its last event. */
export async function settleRelay(rows: Rows, rtos: string[], timeoutMs: number): Promise<{ ms: number; ok: boolean }> {
  const started = Date.now()
  for (;;) {
    const [{ behind }] = (await rows<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM event_stream s
         LEFT JOIN event_relay_position p ON p.rto_id = s.rto_id AND p.relay = 'nats'
        WHERE s.rto_id = ANY($1) AND coalesce(p.last_sequence, 0) < s.last_sequence`,
      [rtos],
    )) as [{ behind: number }]
    if (behind === 0) return { ms: Date.now() - started, ok: true }
    if (Date.now() - started > timeoutMs) return { ms: Date.now() - started, ok: false }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

export async function streamCheck(p: { natsUrl: string; feeds: Map<string, FeedEvent[]>; add: Add }): Promise<void> {
  const name = 'every event is in the JetStream stream exactly once, in its RTO order (broker killed and restarted)'
  const failures: unknown[] = []
  const connection = await connect({ servers: p.natsUrl, timeout: 10_000 })
  let messages = 0
  const byId = new Map<string, { rto: string; sequence: string; count: number }>()
  const lastSequence = new Map<string, number>()
  try {
    const manager = await jetstreamManager(connection)
    const info = await manager.streams.info(STREAM)
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const message = await manager.streams.getMessage(STREAM, { seq })
      if (!message) continue
      if (message.subject.startsWith('vetrs.events.collector.')) continue
      messages++
      const event = message.json<{ id: string; rtoid: string; sequence: string }>()
      const msgId = message.header.get('Nats-Msg-Id')
      if (msgId !== event.id) failures.push({ streamSeq: seq, msgId, eventId: event.id })
      const seen = byId.get(event.id)
      byId.set(event.id, { rto: event.rtoid, sequence: event.sequence, count: (seen?.count ?? 0) + 1 })
      // Order per RTO: each RTO's events reach the stream in sequence order.
      const previous = lastSequence.get(event.rtoid) ?? 0
      if (Number(event.sequence) <= previous)
        failures.push({ rto: event.rtoid, outOfOrder: event.sequence, after: previous, streamSeq: seq })
      lastSequence.set(event.rtoid, Math.max(previous, Number(event.sequence)))
    }
  } catch (error) {
    failures.push({ streamReadFailed: (error as Error).message })
  } finally {
    await connection.close()
  }
  let expected = 0
  const inFeeds = new Set<string>()
  for (const [rto, events] of p.feeds) {
    const once = new Map(events.map((e) => [e.id, e]))
    expected += once.size
    const missing = [...once.values()].filter((e) => !byId.has(e.id))
    const twice = [...once.values()].filter((e) => (byId.get(e.id)?.count ?? 0) > 1)
    for (const id of once.keys()) inFeeds.add(id)
    if (missing.length || twice.length)
      failures.push({
        rto,
        missing: missing.length,
        firstMissing: missing.slice(0, 3).map((e) => `${e.sequence} ${e.type}`),
        moreThanOnce: twice.slice(0, 3).map((e) => `${e.sequence} ${e.type}`),
      })
  }
  const unknown = [...byId.keys()].filter((id) => !inFeeds.has(id))
  if (unknown.length) failures.push({ inTheStreamNotInAFeed: unknown.length, first: unknown.slice(0, 3) })
  p.add(name, failures, `${expected} events in the feeds; ${messages} messages in stream ${STREAM}`)
}
