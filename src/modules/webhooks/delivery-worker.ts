// The delivery worker (issue 33): a loop of its own in every process that runs workers, beside the
// queue's workers and the NATS relay, so a slow or failing receiver holds no job slot and no request;
// uploads and submits only ever write the outbox. Each endpoint has a position in its RTO's event
// stream: the worker takes (leases) an endpoint that is behind and due, reads the events after its
// position and sends each of a type the endpoint asked for, in sequence order. A failed attempt holds
// that event and every later one for the endpoint (ordered per RTO, like the change feed) until the
// next retry, after a wait from the schedule with jitter; when the schedule is spent the endpoint is
// disabled, with an event saying so in the same transaction. Redeliveries a client asks for are sent
// once each, outside that order.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.ts'
import { lastSequences, recordEvent, rtoEventsAfter } from '../events/index.ts'
import { createSender, type Sender } from './delivery.ts'
import type { DestinationPolicy } from './destination.ts'
import { unseal } from './secret-box.ts'
import * as repo from './webhooks.repo.ts'

/** An error as a log may carry it: its code and message, never a stack with a request's data. */
function errorText(error: unknown): { code?: string; message: string } {
  const code = (error as { code?: unknown }).code
  return {
    ...(typeof code === 'string' ? { code } : {}),
    message: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300),
  }
}

export interface WebhookDeliveryOptions {
  db: Db
  logger: Pick<Logger, 'info' | 'warn'>
  policy: DestinationPolicy
  timeoutMs: number
  /** Waits before each retry; after the last one fails, the endpoint is disabled. */
  retryScheduleMs: readonly number[]
  secretsKey: Buffer | undefined
  /** Wait between looks when there was nothing to send (default 200 ms). */
  idleMs?: number
  /** Endpoints served at once by this process (default 8). */
  concurrency?: number
}

export interface WebhookDeliveryWorker {
  stop(): Promise<void>
  /** Resolves once a look found nothing to send (tests, benchmarks). */
  idle(): Promise<void>
}

/** Events read per endpoint per turn. */
const CHUNK = 100
/** Successful deliveries between two stores of an endpoint's position, at most. */
const ADVANCE_EVERY = 20
/** Time between two stores of an endpoint's position while it delivers, at most (well within the lease). */
const ADVANCE_AFTER_MS = 5_000

/** Wait before retry n (1-based) of a held event: the schedule's, varied by up to 10 % either way. */
export function retryWaitMs(schedule: readonly number[], failedAttempts: number, random = Math.random): number {
  const base = schedule[failedAttempts - 1] ?? 0
  return Math.round(base * (0.9 + 0.2 * random()))
}

export function startWebhookDelivery(options: WebhookDeliveryOptions): WebhookDeliveryWorker {
  const { db, logger, policy, retryScheduleMs } = options
  const idleMs = options.idleMs ?? 200
  const concurrency = options.concurrency ?? 8
  // The lease outlasts a whole turn of one endpoint's sends only if renewed: it is, after every success.
  const leaseMs = options.timeoutMs * 3 + 30_000
  const sender: Sender = createSender(policy, options.timeoutMs)
  const stopping = new AbortController()
  const caughtUp: (() => void)[] = []

  const secretsOf = (endpoint: repo.EndpointRow): string[] => {
    const secrets = [unseal(endpoint.secret, options.secretsKey)]
    if (
      endpoint.previous_secret !== null &&
      endpoint.previous_secret_until !== null &&
      new Date(endpoint.previous_secret_until).getTime() > Date.now()
    )
      secrets.push(unseal(endpoint.previous_secret, options.secretsKey))
    return secrets
  }

  /** Sends what the endpoint is owed, in order, until it is caught up, a send fails, or CHUNK events. */
  const serve = async (endpoint: repo.EndpointRow): Promise<number> => {
    const events = await rtoEventsAfter(db, endpoint.rto_id, endpoint.position, CHUNK)
    const wanted = new Set(endpoint.event_types)
    let handled: string | undefined
    let sent = 0
    let sinceStored = 0
    let storedAt = performance.now()
    try {
      for (const event of events) {
        if (stopping.signal.aborted) break
        if (wanted.size > 0 && !wanted.has(event.type)) {
          handled = event.sequence
          continue
        }
        const attempt = endpoint.failed_attempts + 1
        const outcome = await sender.send(endpoint.url, event.id, JSON.stringify(event), secretsOf(endpoint))
        sent++
        await repo.insertAttempt(db, {
          attempt_id: randomUUID(),
          endpoint_id: endpoint.endpoint_id,
          rto_id: endpoint.rto_id,
          event_id: event.id,
          event_sequence: event.sequence,
          event_type: event.type,
          attempt,
          redelivery: false,
          succeeded: outcome.succeeded,
          status_code: outcome.statusCode,
          error: outcome.error,
          latency_ms: outcome.latencyMs,
        })
        if (outcome.succeeded) {
          handled = event.sequence
          endpoint.failed_attempts = 0
          // The position (and the lease) is stored every ADVANCE_EVERY deliveries or seconds, not after
          // each: a worker that dies in between sends those events again (same webhook-id), which
          // at-least-once delivery allows; a round trip per event is saved.
          if (++sinceStored >= ADVANCE_EVERY || performance.now() - storedAt > ADVANCE_AFTER_MS) {
            await repo.advanceEndpoint(db, endpoint.rto_id, endpoint.endpoint_id, event.sequence, leaseMs)
            sinceStored = 0
            storedAt = performance.now()
          }
          continue
        }
        if (handled !== undefined)
          await repo.advanceEndpoint(db, endpoint.rto_id, endpoint.endpoint_id, handled, leaseMs)
        handled = undefined
        if (attempt > retryScheduleMs.length) await disable(endpoint, attempt, event.id, event.sequence)
        else
          await repo.scheduleRetry(
            db,
            endpoint.rto_id,
            endpoint.endpoint_id,
            attempt,
            retryWaitMs(retryScheduleMs, attempt),
          )
        return sent
      }
      if (handled !== undefined) await repo.advanceEndpoint(db, endpoint.rto_id, endpoint.endpoint_id, handled, leaseMs)
      await repo.releaseEndpoint(db, endpoint.rto_id, endpoint.endpoint_id)
    } catch (error) {
      await repo.releaseEndpoint(db, endpoint.rto_id, endpoint.endpoint_id).catch(() => {})
      throw error
    }
    return sent
  }

  const disable = async (endpoint: repo.EndpointRow, attempts: number, eventId: string, sequence: string) => {
    await db.transaction().execute(async (tx) => {
      if (!(await repo.disableFailingEndpoint(tx, endpoint.rto_id, endpoint.endpoint_id, attempts))) return
      await recordEvent(tx, {
        rto: endpoint.rto_id,
        type: 'au.gov.vetrs.webhook-endpoint.disabled',
        subject: `webhook-endpoints/${endpoint.endpoint_id}`,
        data: {
          endpointId: endpoint.endpoint_id,
          reason: 'failing',
          failedAttempts: attempts,
          heldEventId: eventId,
          heldEventSequence: sequence,
        },
      })
    })
    logger.warn(
      { endpointId: endpoint.endpoint_id, rto: endpoint.rto_id, attempts },
      'webhook endpoint disabled: its retries ran out',
    )
  }

  const redeliver = async (): Promise<number> => {
    const requests = await repo.claimRedeliveries(db, 20, leaseMs)
    for (const request of requests) {
      const endpoint = await repo.endpointById(db, request.rto_id, request.endpoint_id)
      const [event] = endpoint
        ? await rtoEventsAfter(db, endpoint.rto_id, (BigInt(request.event_sequence) - 1n).toString(), 1)
        : []
      if (endpoint && event && event.sequence === request.event_sequence) {
        const outcome = await sender.send(endpoint.url, event.id, JSON.stringify(event), secretsOf(endpoint))
        await repo.insertAttempt(db, {
          attempt_id: randomUUID(),
          endpoint_id: endpoint.endpoint_id,
          rto_id: endpoint.rto_id,
          event_id: event.id,
          event_sequence: event.sequence,
          event_type: event.type,
          attempt: 1,
          redelivery: true,
          succeeded: outcome.succeeded,
          status_code: outcome.statusCode,
          error: outcome.error,
          latency_ms: outcome.latencyMs,
        })
      }
      await repo.deleteRedelivery(db, request.rto_id, request.endpoint_id, request.event_sequence)
    }
    return requests.length
  }

  const turn = async (): Promise<number> => {
    let sent = await redeliver()
    const due = await repo.dueEndpoints(db, 200)
    if (due.length === 0) return sent
    const heads = await lastSequences(db, [...new Set(due.map((e) => e.rto_id))])
    const behind = due.filter((e) => BigInt(heads.get(e.rto_id) ?? '0') > BigInt(e.position))
    for (let i = 0; i < behind.length; i += concurrency) {
      const batch = behind.slice(i, i + concurrency)
      const counts = await Promise.all(
        batch.map(async ({ rto_id, endpoint_id }) => {
          const endpoint = await repo.claimEndpoint(db, rto_id, endpoint_id, leaseMs)
          return endpoint ? serve(endpoint) : 0
        }),
      )
      sent += counts.reduce((a, b) => a + b, 0)
    }
    return sent
  }

  const loop = async () => {
    let failures = 0
    while (!stopping.signal.aborted) {
      try {
        const sent = await turn()
        if (failures > 0) logger.info({ failedTurns: failures }, 'webhook delivery works again')
        failures = 0
        if (sent === 0) {
          for (const resolve of caughtUp.splice(0)) resolve()
          await sleep(idleMs, undefined, { signal: stopping.signal })
        }
      } catch (error) {
        if (stopping.signal.aborted) break
        const wait = Math.min(5_000, 200 * 2 ** failures++)
        // Once per streak of failures (a database outage fails every turn), as the queue does.
        if (failures === 1)
          logger.warn({ err: errorText(error) }, 'webhook delivery: a turn failed; retrying until it works')
        await sleep(wait, undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  }
  const running = loop().catch(() => {})

  return {
    async stop() {
      stopping.abort()
      await running
      sender.close()
    },
    idle() {
      return new Promise((resolve) => caughtUp.push(resolve))
    },
  }
}
