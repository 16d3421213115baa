// The chaos run's ledger of events (issue 33): after the run has settled, each RTO's change feed
// (GET /vet-provider/v1/events, read through the SDK as the RTO's own client) is held to the ledger of
// acknowledged operations and to the database. The feed is at-least-once, so events are counted by
// distinct id. Three checks:
//   - the feed itself: ids distinct per sequence, sequences 1..N without gaps, one RTO per feed;
//   - every acknowledged change has exactly one event (batch created, discarded, validated, submitted,
//     reconciled, records voided, assessment completed, declaration made, the client registered);
//   - no event without its change: each event names something the database has (or a discard
//     removed), and each stored change (batch, Validated run, Completed assessment, declaration made
//     or superseded) has exactly one event; so a change that was not acknowledged (a submit that
//     committed without an answer) must still have its event, and a change that rolled back none.
import type { Ledger } from './ledger.ts'
import type { Sms } from './sms.ts'
import type { WebhookReceiver } from './webhook-receiver.ts'

export interface FeedEvent {
  id: string
  type: string
  sequence: string
  rtoid?: string
  data: Record<string, unknown>
}

const T = (name: string) => `au.gov.vetrs.${name}`
/** Notices, not changes: the daily due-date job may write them in any run; counted, not checked. */
const NOTICES = new Set([T('declaration.due-soon'), T('declaration.overdue')])

type Add = (name: string, failures: unknown[], detail: string) => void
type Rows = <R>(text: string, values?: unknown[]) => Promise<R[]>

/** Every event of each client's RTO, in feed order, pages of 500, repeats (same id) included. */
export async function readFeeds(clients: Sms[]): Promise<{ feeds: Map<string, FeedEvent[]>; errors: unknown[] }> {
  const feeds = new Map<string, FeedEvent[]>()
  const errors: unknown[] = []
  for (const client of clients) {
    const rto = client.report.rto
    const events: FeedEvent[] = []
    try {
      for await (const event of client.vetrs.events('0', { pageSize: 500 })) events.push(event as unknown as FeedEvent)
    } catch (error) {
      errors.push({ rto, feedReadFailed: (error as Error).message })
    }
    feeds.set(rto, events)
  }
  return { feeds, errors }
}

/** The feed's events by id, once each (at-least-once: a repeat of an id is the same event). */
function distinct(events: FeedEvent[]): FeedEvent[] {
  const byId = new Map<string, FeedEvent>()
  for (const event of events) if (!byId.has(event.id)) byId.set(event.id, event)
  return [...byId.values()]
}

const str = (value: unknown) => (typeof value === 'string' ? value : String(value ?? ''))

export async function eventChecks(p: {
  clients: Sms[]
  ledger: Ledger
  rows: Rows
  add: Add
}): Promise<{ events: number; feeds: Map<string, FeedEvent[]> }> {
  const { ledger, rows, add } = p
  const rtos = p.clients.map((c) => c.report.rto)
  const { feeds, errors } = await readFeeds(p.clients)

  // 1. The feed itself.
  const feedFailures: unknown[] = [...errors]
  let read = 0
  let total = 0
  for (const [rto, events] of feeds) {
    read += events.length
    const seen = new Map<string, string>()
    for (const event of events) {
      const sequence = seen.get(event.id)
      if (sequence !== undefined && sequence !== event.sequence)
        feedFailures.push({ rto, id: event.id, sequences: [sequence, event.sequence] })
      seen.set(event.id, event.sequence)
      if (event.rtoid !== rto) feedFailures.push({ rto, id: event.id, rtoid: event.rtoid })
    }
    const once = distinct(events)
    total += once.length
    once.forEach((event, i) => {
      if (event.sequence !== String(i + 1))
        feedFailures.push({ rto, expectedSequence: i + 1, sequence: event.sequence, type: event.type })
    })
  }
  add(
    'the change feed of each RTO: one sequence per event id, 1..N without gaps, only its own events',
    feedFailures,
    `${total} distinct events in ${feeds.size} feeds (${read} read)`,
  )

  // What the database has, for the run's RTOs.
  const batches = await rows<{ rto_id: string; token: string; status: string; reconciled: boolean }>(
    `SELECT rto_id, transaction_batch_token AS token, status, reconciled_at IS NOT NULL AS reconciled
       FROM transaction_batch WHERE rto_id = ANY($1)`,
    [rtos],
  )
  const validationRuns = await rows<{ rto_id: string; run_id: string; status: string; token: string }>(
    `SELECT rto_id, run_id::text, status, transaction_batch_token AS token FROM validation_run WHERE rto_id = ANY($1)`,
    [rtos],
  )
  const assessmentRuns = await rows<{ rto_id: string; run_id: string; status: string }>(
    'SELECT rto_id, run_id::text, status FROM assessment_run WHERE rto_id = ANY($1)',
    [rtos],
  )
  const declarations = await rows<{ rto_id: string; id: string; name: string; is_current: boolean }>(
    `SELECT rto_id, declaration_id::text AS id, rto_user_name AS name, is_current FROM declaration WHERE rto_id = ANY($1)`,
    [rtos],
  )

  // Events counted by (RTO, type, key): the key is what the event is about.
  const keyOf = (event: FeedEvent): string => {
    const d = event.data ?? {}
    switch (event.type) {
      case T('batch.validated'):
        return str(d.validationRunId)
      case T('assessment.completed'):
        return str(d.assessmentRunId)
      case T('declaration.made'):
      case T('declaration.superseded'):
        return str(d.declarationId)
      case T('client.registered'):
        return str(d.clientId)
      default:
        return str(d.transactionBatchToken)
    }
  }
  const counted = new Map<string, FeedEvent[]>()
  for (const [rto, events] of feeds)
    for (const event of distinct(events)) {
      const key = `${rto}|${event.type}|${keyOf(event)}`
      counted.set(key, [...(counted.get(key) ?? []), event])
    }
  const eventsOf = (rto: string, type: string, key: string) => counted.get(`${rto}|${T(type)}|${key}`) ?? []
  const countOf = (rto: string, type: string, key: string) => eventsOf(rto, type, key).length

  // 2. Every acknowledged change has exactly one event.
  const missing: unknown[] = []
  const expect = (rto: string, type: string, key: string, n: number, what: string) => {
    const got = countOf(rto, type, key)
    if (got !== n) missing.push({ rto, what, type, key, events: got })
  }
  const validatedBatches = new Set<string>()
  for (const [rto, events] of feeds)
    for (const event of distinct(events))
      if (event.type === T('batch.validated')) validatedBatches.add(`${rto}|${str(event.data.transactionBatchToken)}`)
  let acknowledged = 0
  for (const batch of ledger.batches.values()) {
    expect(batch.rto, 'batch.created', batch.token, 1, 'batch created')
    acknowledged++
    if (batch.discarded) {
      expect(batch.rto, 'batch.discarded', batch.token, 1, 'batch discarded')
      acknowledged++
    }
    if (batch.validationResults !== undefined) {
      // Keyed by run: a batch validated twice (fixed, or validated again after a fault) has two.
      if (!validatedBatches.has(`${batch.rto}|${batch.token}`))
        missing.push({ rto: batch.rto, what: 'batch validated', batch: batch.token, events: 0 })
      acknowledged++
    }
    if (batch.submitted || batch.submittedUnacknowledged) {
      expect(batch.rto, 'batch.submitted', batch.token, 1, 'batch submitted')
      expect(batch.rto, 'batch.reconciled', batch.token, 1, 'submission reconciled')
      acknowledged += 2
      const [submitted] = eventsOf(batch.rto, 'batch.submitted', batch.token)
      if (batch.submitted && submitted && submitted.data.numberOfRecordsSubmitted !== batch.submitted.records)
        missing.push({
          rto: batch.rto,
          batch: batch.token,
          numberOfRecordsSubmitted: {
            answered: batch.submitted.records,
            event: submitted.data.numberOfRecordsSubmitted,
          },
        })
    }
  }
  const voidsByBatch = new Map<string, { rto: string; n: number }>()
  for (const v of ledger.voids) voidsByBatch.set(v.batch, { rto: v.rto, n: (voidsByBatch.get(v.batch)?.n ?? 0) + 1 })
  for (const [token, { rto, n }] of voidsByBatch) {
    const events = eventsOf(rto, 'records.voided', token)
    acknowledged++
    if (events.length !== 1 || events[0]!.data.numberOfRecordsVoided !== n)
      missing.push({ rto, what: 'records voided', batch: token, voided: n, events: events.map((e) => e.data) })
  }
  for (const d of ledger.declarations) {
    acknowledged++
    const stored = declarations.filter((row) => row.rto_id === d.rto && row.name === d.userName)
    if (stored.length !== 1 || countOf(d.rto, 'declaration.made', stored[0]!.id) !== 1)
      missing.push({
        rto: d.rto,
        what: 'declaration made',
        stored: stored.length,
        events: stored.map((s) => countOf(d.rto, 'declaration.made', s.id)),
      })
  }
  for (const [rto] of ledger.assessmentsRequested) {
    acknowledged++
    const any = [...counted.keys()].some((key) => key.startsWith(`${rto}|${T('assessment.completed')}|`))
    if (!any) missing.push({ rto, what: 'assessment completed', events: 0 })
  }
  for (const rto of rtos) {
    acknowledged++
    expect(rto, 'client.registered', `chaos-sms-${rto}`, 1, 'client registered (CLI)')
  }
  add(
    "every acknowledged change has exactly one event in its RTO's change feed (distinct ids)",
    missing,
    `${acknowledged} acknowledged changes`,
  )

  // 3. No event without its change, and no stored change without its event.
  const orphans: unknown[] = []
  const batchOf = new Map(batches.map((b) => [`${b.rto_id}|${b.token}`, b]))
  const runOf = new Map(validationRuns.map((r) => [`${r.rto_id}|${r.run_id}`, r]))
  const assessmentOf = new Map(assessmentRuns.map((r) => [`${r.rto_id}|${r.run_id}`, r]))
  const declarationOf = new Map(declarations.map((d) => [`${d.rto_id}|${d.id}`, d]))
  const notices = new Map<string, number>()
  for (const [rto, events] of feeds)
    for (const event of distinct(events)) {
      const key = keyOf(event)
      const batch = batchOf.get(`${rto}|${key}`)
      const discarded = countOf(rto, 'batch.discarded', key) > 0
      const ledgerBatch = ledger.batches.get(key)
      let found = true
      switch (event.type) {
        case T('batch.created'):
          found = batch !== undefined || discarded
          break
        case T('batch.discarded'):
          found = batch === undefined && (ledgerBatch === undefined || ledgerBatch.discarded === true)
          break
        case T('batch.validated'): {
          const token = str(event.data.transactionBatchToken)
          found =
            runOf.has(`${rto}|${key}`) ||
            (!batchOf.has(`${rto}|${token}`) && countOf(rto, 'batch.discarded', token) > 0)
          break
        }
        case T('batch.submitted'):
        case T('records.voided'):
          found = batch?.status === 'Submitted'
          break
        case T('batch.reconciled'):
          found = batch?.status === 'Submitted' && batch.reconciled
          break
        case T('assessment.completed'):
          found = assessmentOf.get(`${rto}|${key}`)?.status === 'Completed'
          break
        case T('declaration.made'):
          found = declarationOf.has(`${rto}|${key}`)
          break
        case T('declaration.superseded'):
          found = declarationOf.get(`${rto}|${key}`)?.is_current === false
          break
        case T('client.registered'):
          found = key === `chaos-sms-${rto}`
          break
        default:
          if (NOTICES.has(event.type)) notices.set(event.type, (notices.get(event.type) ?? 0) + 1)
          else found = false
      }
      if (!found) orphans.push({ rto, type: event.type, sequence: event.sequence, about: key })
    }
  for (const b of batches) {
    if (countOf(b.rto_id, 'batch.created', b.token) !== 1)
      orphans.push({ rto: b.rto_id, batch: b.token, created: countOf(b.rto_id, 'batch.created', b.token) })
    if (b.status === 'Submitted' && countOf(b.rto_id, 'batch.submitted', b.token) !== 1)
      orphans.push({ rto: b.rto_id, batch: b.token, submitted: countOf(b.rto_id, 'batch.submitted', b.token) })
    if (b.reconciled && countOf(b.rto_id, 'batch.reconciled', b.token) !== 1)
      orphans.push({ rto: b.rto_id, batch: b.token, reconciled: countOf(b.rto_id, 'batch.reconciled', b.token) })
  }
  for (const r of validationRuns)
    if (r.status === 'Validated' && countOf(r.rto_id, 'batch.validated', r.run_id) !== 1)
      orphans.push({ rto: r.rto_id, validationRun: r.run_id, events: countOf(r.rto_id, 'batch.validated', r.run_id) })
  for (const r of assessmentRuns)
    if (r.status === 'Completed' && countOf(r.rto_id, 'assessment.completed', r.run_id) !== 1)
      orphans.push({
        rto: r.rto_id,
        assessmentRun: r.run_id,
        events: countOf(r.rto_id, 'assessment.completed', r.run_id),
      })
  for (const d of declarations) {
    if (countOf(d.rto_id, 'declaration.made', d.id) !== 1)
      orphans.push({ rto: d.rto_id, declaration: d.id, made: countOf(d.rto_id, 'declaration.made', d.id) })
    if (!d.is_current && countOf(d.rto_id, 'declaration.superseded', d.id) !== 1)
      orphans.push({ rto: d.rto_id, declaration: d.id, superseded: countOf(d.rto_id, 'declaration.superseded', d.id) })
  }
  const validated = validationRuns.filter((r) => r.status === 'Validated').length
  const completed = assessmentRuns.filter((r) => r.status === 'Completed').length
  add(
    'no event without its change in the database, and every stored change with exactly one event',
    orphans,
    `${batches.length} batches, ${validated} Validated runs, ${completed} completed assessments, ${declarations.length} declarations stored; notices: ${[...notices].map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}`,
  )
  return { events: total, feeds }
}

/** Each RTO's endpoint at the receiver: registered before the load, done with events up to startAfter. */
export interface ChaosEndpoint {
  endpointId: string
  startAfter: number
}

/**
 * Every event of each RTO's feed after its endpoint was registered has a delivery, verified with the
 * endpoint's secret and answered 200, with webhook-id the event's id (counted by distinct id: a
 * repeat is allowed, at-least-once); no delivery of an event the feed does not have; each endpoint
 * still enabled and done with the RTO's last event.
 */
export async function webhookCheck(p: {
  clients: Sms[]
  feeds: Map<string, FeedEvent[]>
  receiver: WebhookReceiver
  endpoints: Map<string, ChaosEndpoint>
  add: Add
}): Promise<void> {
  const failures: unknown[] = [...p.receiver.refusals]
  const delivered = p.receiver.deliveredIds()
  let expected = 0
  for (const client of p.clients) {
    const rto = client.report.rto
    const endpoint = p.endpoints.get(rto)
    if (!endpoint) {
      failures.push({ rto, endpoint: 'not registered' })
      continue
    }
    const events = distinct(p.feeds.get(rto) ?? []).filter((e) => Number(e.sequence) > endpoint.startAfter)
    expected += events.length
    const ids = delivered.get(rto) ?? new Set<string>()
    const inFeed = new Set((p.feeds.get(rto) ?? []).map((e) => e.id))
    const undelivered = events.filter((e) => !ids.has(e.id))
    const unknown = [...ids].filter((id) => !inFeed.has(id))
    if (undelivered.length || unknown.length)
      failures.push({
        rto,
        undelivered: undelivered.length,
        firstUndelivered: undelivered.slice(0, 3).map((e) => `${e.sequence} ${e.type}`),
        deliveredNotInFeed: unknown.slice(0, 3),
      })
    try {
      const state = await client.vetrs.webhookEndpoint(endpoint.endpointId)
      const last = events.at(-1)?.sequence ?? String(endpoint.startAfter)
      if (!state.enabled || BigInt(state.deliveredThrough) < BigInt(last))
        failures.push({
          rto,
          enabled: state.enabled,
          disabledReason: state.disabledReason,
          deliveredThrough: state.deliveredThrough,
          lastEvent: last,
        })
    } catch (error) {
      failures.push({ rto, endpointReadFailed: (error as Error).message })
    }
  }
  const mismatched = p.receiver.delivered.filter((d) => d.bodyId !== d.id || d.bodyRto !== d.rto)
  failures.push(...mismatched.slice(0, 3).map((d) => ({ webhookIdOrRtoDiffersFromBody: d })))
  const distinctDeliveries = [...delivered.values()].reduce((n, ids) => n + ids.size, 0)
  const c = p.receiver.counts
  p.add(
    'every event has one successful, verified webhook delivery to the faulty receiver (distinct webhook-id)',
    failures,
    `${expected} events after the endpoints were registered; ${distinctDeliveries} delivered (${p.receiver.delivered.length - distinctDeliveries} repeats); receiver: ${c.attempts} attempts, ${c.answered500} answered 500, ${c.stalled} stalled, ${c.refusedSignature} refused signatures`,
  )
}

/** Waits (bounded) until the receiver has every event of the outbox after each endpoint's start. */
export async function settleWebhooks(
  rows: Rows,
  receiver: WebhookReceiver,
  endpoints: Map<string, ChaosEndpoint>,
  timeoutMs: number,
): Promise<{ ms: number; ok: boolean }> {
  const started = Date.now()
  for (;;) {
    const outbox = await rows<{ rto_id: string; id: string; sequence: string }>(
      'SELECT rto_id, event_id::text AS id, sequence::text FROM event_outbox WHERE rto_id = ANY($1)',
      [[...endpoints.keys()]],
    )
    const delivered = receiver.deliveredIds()
    const behind = outbox.filter(
      (e) => Number(e.sequence) > (endpoints.get(e.rto_id)?.startAfter ?? 0) && !delivered.get(e.rto_id)?.has(e.id),
    )
    if (behind.length === 0) return { ms: Date.now() - started, ok: true }
    if (Date.now() - started > timeoutMs) return { ms: Date.now() - started, ok: false }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}
