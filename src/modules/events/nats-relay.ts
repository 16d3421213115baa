// The relay (issue 33): publishes the outbox to a NATS JetStream stream, each RTO's events in sequence
// order, each with its event id as the message id (Nats-Msg-Id), so the stream drops a message
// published twice within its duplicate window. Where it got to is stored per RTO in
// event_relay_position after each chunk is acknowledged: after a crash it starts again from there, and
// what it had published but not yet stored comes again and is dropped as a duplicate. It is a loop of
// its own beside the queue's workers: uploads and submits write the outbox and never wait on the
// broker, which may lag or be gone (the loop retries and the outbox keeps the events meanwhile).
import { setTimeout as sleep } from 'node:timers/promises'
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream'
import { connect, headers, nanos, type NatsConnection } from '@nats-io/transport-node'
import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.ts'
import { EVENT_TYPE_PREFIX } from './event-types.ts'
import * as repo from './events.repo.ts'
import { toCloudEvent, type CloudEvent } from './events.service.ts'

export interface NatsRelayOptions {
  db: Db
  logger: Pick<Logger, 'info' | 'warn'>
  /** nats://host:port (NATS_URL). */
  url: string
  /** The JetStream stream, created if missing (NATS_STREAM, default VETRS_EVENTS). */
  stream: string
  /** Subjects are `<prefix>.<rto>.<type without au.gov.vetrs.>` (default vetrs.events). */
  subjectPrefix?: string
  /** Name of this relay's positions (default nats). */
  relay?: string
  /** Wait between looks at the outbox when there was nothing to publish (default 200 ms). */
  idleMs?: number
  /** Events published per chunk, between two stored positions (default 500). */
  chunk?: number
}

export interface NatsRelay {
  /** Stops after the chunk being published, closes the connection. */
  stop(): Promise<void>
  /** Resolves once the relay has nothing left to publish (tests, benchmarks). */
  idle(): Promise<void>
}

/** How long the stream remembers message ids to drop duplicates. */
const DUPLICATE_WINDOW_MS = 10 * 60_000
const RETRY_MS = [200, 500, 1_000, 2_000, 5_000]

/** `<prefix>.<rto>.<type without au.gov.vetrs.>`; a collector-wide event's RTO token is `collector`. */
export function subjectOf(prefix: string, event: Pick<CloudEvent, 'rtoid' | 'type'>): string {
  const token = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_') || '_'
  const type = event.type.startsWith(EVENT_TYPE_PREFIX) ? event.type.slice(EVENT_TYPE_PREFIX.length) : token(event.type)
  return `${prefix}.${event.rtoid === undefined ? 'collector' : token(event.rtoid)}.${type}`
}

export function startNatsRelay(options: NatsRelayOptions): NatsRelay {
  const { db, logger, url, stream } = options
  const prefix = options.subjectPrefix ?? 'vetrs.events'
  const relay = options.relay ?? 'nats'
  const idleMs = options.idleMs ?? 200
  const chunk = options.chunk ?? 500
  const stopping = new AbortController()
  let connection: NatsConnection | undefined
  const caughtUp: (() => void)[] = []

  const open = async (): Promise<JetStreamClient> => {
    connection = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 500, name: 'vetrs-relay' })
    const manager = await jetstreamManager(connection)
    const config = { subjects: [`${prefix}.>`], duplicate_window: nanos(DUPLICATE_WINDOW_MS) }
    try {
      await manager.streams.info(stream)
    } catch {
      await manager.streams.add({ name: stream, ...config })
    }
    logger.info({ stream }, 'event relay connected to NATS JetStream')
    return jetstream(connection)
  }

  /** Publishes one chunk of one RTO's events; how many. */
  const publishChunk = async (js: JetStreamClient, rto: string, published: string): Promise<number> => {
    const rows = await repo.eventsAfter(db, rto, BigInt(published), chunk)
    for (const row of rows) {
      const event = toCloudEvent(row)
      const h = headers()
      h.set('Content-Type', 'application/cloudevents+json')
      await js.publish(subjectOf(prefix, event), JSON.stringify(event), { msgID: event.id, headers: h })
    }
    if (rows.length > 0) await repo.advanceRelayPosition(db, relay, rto, rows.at(-1)!.sequence)
    return rows.length
  }

  const loop = async () => {
    let failures = 0
    let js: JetStreamClient | undefined
    while (!stopping.signal.aborted) {
      try {
        js ??= await open()
        let sent = 0
        for (const { rto_id, published } of await repo.rtosBehind(db, relay, 100)) {
          if (stopping.signal.aborted) break
          sent += await publishChunk(js, rto_id, published)
        }
        failures = 0
        if (sent === 0) {
          for (const resolve of caughtUp.splice(0)) resolve()
          await sleep(idleMs, undefined, { signal: stopping.signal })
        }
      } catch (error) {
        if (stopping.signal.aborted) break
        const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!
        logger.warn({ err: error, retryInMs: wait }, 'event relay: publishing to NATS failed; retrying')
        if (connection?.isClosed()) {
          js = undefined
          connection = undefined
        }
        await sleep(wait, undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  }
  const running = loop().catch(() => {})

  return {
    async stop() {
      stopping.abort()
      await running
      await connection?.close().catch(() => {})
    },
    idle() {
      return new Promise((resolve) => caughtUp.push(resolve))
    },
  }
}
