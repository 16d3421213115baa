// The checks at the end of a chaos run, once faults have stopped and the system has settled: the
// service is held to its ledger of acknowledged operations, reading the primary directly (not through
// the proxy) and reconciliation through the API (the replica, as clients read it).
import pg from 'pg'
import { resourceTypes } from '../../src/domain/resource-types.ts'
import type { Cluster } from '../cluster/cluster.ts'
import { type ChaosEndpoint, eventChecks, webhookCheck } from './event-checks.ts'
import type { Fault } from './faults.ts'
import type { Ledger, Observation } from './ledger.ts'
import { bodyHash, REPORTING_PERIOD } from './records.ts'
import type { Sms } from './sms.ts'
import { streamCheck } from './stream-checks.ts'
import type { WebhookReceiver } from './webhook-receiver.ts'

export interface Check {
  name: string
  ok: boolean
  detail: string
  /** Up to 10 examples of what failed. */
  failures?: unknown[]
}

export interface FiveXx {
  at: number
  rto: string
  endpoint: string
  status: number
  servedBy: string | null
  classification: string
  allowed: boolean
  body?: string
}

// Reconciliation searches every type but delivery locations (search-by-period does not take them).
const RESOURCE_TYPES = resourceTypes.filter((type) => type !== 'DeliveryLocation')

/** Waits (bounded) until every submitted batch is reconciled on the primary and the replica has replayed it all. */
export async function settle(cluster: Cluster, timeoutMs: number): Promise<{ ms: number; ok: boolean }> {
  const started = Date.now()
  const db = await connect(cluster.primary.superuserDsn.replace(/\/postgres$/, '/vetrs'))
  const replica = await connect(cluster.replica.superuserDsn.replace(/\/postgres$/, '/vetrs'))
  try {
    for (;;) {
      const [pending] = (
        await db.query(
          `SELECT count(*)::int AS n FROM transaction_batch WHERE status = 'Submitted' AND reconciled_at IS NULL`,
        )
      ).rows as { n: number }[]
      const [{ lsn }] = (await db.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows as [{ lsn: string }]
      const [{ behind }] = (await replica.query('SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind', [lsn]))
        .rows as [{ behind: boolean }]
      if (pending!.n === 0 && !behind) return { ms: Date.now() - started, ok: true }
      if (Date.now() - started > timeoutMs) return { ms: Date.now() - started, ok: false }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  } finally {
    await db.end()
    await replica.end()
  }
}

export async function connect(dsn: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: dsn, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  await client.connect()
  return client
}

export async function runChecks(p: {
  cluster: Cluster
  ledger: Ledger
  clients: Sms[]
  observations: Observation[]
  faults: Fault[]
  /** After a database cut is undone, HAProxy needs its checks (rise 2 at 1 s) to take the API processes back. */
  graceMs: number
  /** The webhook receiver and each RTO's endpoint at it, when the run delivers webhooks. */
  webhooks?: { receiver: WebhookReceiver; endpoints: Map<string, ChaosEndpoint> }
  /** The cluster's nats-server, when the relay publishes to it (--nats). */
  natsUrl?: string
}): Promise<{ checks: Check[]; fiveXx: FiveXx[]; held: number; events: number }> {
  const { cluster, ledger } = p
  const checks: Check[] = []
  const add = (name: string, failures: unknown[], detail: string) =>
    checks.push({
      name,
      ok: failures.length === 0,
      detail,
      ...(failures.length ? { failures: failures.slice(0, 10) } : {}),
    })
  const db = await connect(cluster.primary.superuserDsn.replace(/\/postgres$/, '/vetrs'))
  try {
    const rows = async <R>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as R[]

    // Batches as the database has them.
    const batchRows = await rows<{ rto_id: string; transaction_batch_token: string; status: string }>(
      'SELECT rto_id, transaction_batch_token, status FROM transaction_batch',
    )
    const batchStatus = new Map(batchRows.map((b) => [b.transaction_batch_token, b.status]))

    // 1. Every acknowledged upload present: in its batch (by content), and held from it once submitted.
    const batchRecords = new Map<string, string>()
    for (const r of await rows<{ token: string; type: string; uid: string; body: unknown }>(
      'SELECT transaction_batch_token AS token, resource_type AS type, resource_uid::text AS uid, body FROM batch_record',
    ))
      batchRecords.set(`${r.token}|${r.type}|${r.uid}`, bodyHash(r.body))
    const heldRows = await rows<{
      rto_id: string
      type: string
      uid: string
      token: string
      body: unknown
      is_current: boolean
      state: string
      cti: string | null
    }>(
      `SELECT rto_id, resource_type AS type, resource_uid::text AS uid, transaction_batch_token AS token, body,
              is_current, state_in_submission AS state, change_tracking_identifier AS cti FROM held_record`,
    )
    const heldFrom = new Map<string, { count: number; hash: string }>()
    for (const h of heldRows) {
      const key = `${h.token}|${h.type}|${h.uid}`
      const seen = heldFrom.get(key)
      heldFrom.set(key, { count: (seen?.count ?? 0) + 1, hash: bodyHash(h.body) })
    }
    const missing: unknown[] = []
    let checkedUploads = 0
    for (const upload of ledger.uploads.values()) {
      const batch = ledger.batches.get(upload.batch)
      if (batch?.discarded) continue
      checkedUploads++
      const key = `${upload.batch}|${upload.resourceType}|${upload.uid}`
      const inBatch = batchRecords.get(key)
      if (inBatch !== upload.hash) missing.push({ ...upload, inBatch: inBatch ?? 'absent' })
      if (batchStatus.get(upload.batch) === 'Submitted') {
        const held = heldFrom.get(key)
        if (held?.hash !== upload.hash) missing.push({ ...upload, held: held ?? 'absent' })
      }
    }
    add(
      'every acknowledged upload is present (in its batch; held from it once submitted)',
      missing,
      `${checkedUploads} acknowledged uploads outside discarded batches`,
    )

    // 2. Every batch answered 200 Submitted held exactly once, with all its records.
    const byBatch = <T>(entries: Iterable<[string, T]>) => {
      const out = new Map<string, [string, T][]>()
      for (const entry of entries) {
        const token = entry[0].slice(0, entry[0].indexOf('|'))
        const list = out.get(token) ?? []
        list.push(entry)
        out.set(token, list)
      }
      return out
    }
    const recordsByBatch = byBatch(batchRecords)
    const heldByBatch = byBatch(heldFrom)
    const uploadsByBatch = new Map<string, { resourceType: string; uid: string }[]>()
    for (const upload of ledger.uploads.values()) {
      const list = uploadsByBatch.get(upload.batch) ?? []
      list.push(upload)
      uploadsByBatch.set(upload.batch, list)
    }
    const submittedFailures: unknown[] = []
    let submittedBatches = 0
    for (const batch of ledger.batches.values()) {
      if (!batch.submitted && !batch.submittedUnacknowledged) continue
      submittedBatches++
      if (batchStatus.get(batch.token) !== 'Submitted')
        submittedFailures.push({ batch: batch.token, status: batchStatus.get(batch.token) ?? 'absent' })
      const acknowledged = new Set((uploadsByBatch.get(batch.token) ?? []).map((u) => `${u.resourceType}|${u.uid}`))
      const inBatch = recordsByBatch.get(batch.token) ?? []
      const held = heldByBatch.get(batch.token) ?? []
      const twice = held.filter(([, h]) => h.count !== 1)
      if (twice.length > 0) submittedFailures.push({ batch: batch.token, heldMoreThanOnce: twice.slice(0, 3) })
      if (held.length !== inBatch.length || held.length !== acknowledged.size)
        submittedFailures.push({
          batch: batch.token,
          acknowledged: acknowledged.size,
          inBatch: inBatch.length,
          held: held.length,
        })
      if (batch.submitted && batch.submitted.records !== acknowledged.size)
        submittedFailures.push({
          batch: batch.token,
          numberOfRecordsSubmitted: batch.submitted.records,
          acknowledged: acknowledged.size,
        })
    }
    // No record held twice from one batch anywhere (batches the ledger does not know of included).
    const duplicates = await rows(
      `SELECT rto_id, transaction_batch_token, resource_type, resource_uid::text, count(*)::int AS versions
         FROM held_record GROUP BY 1, 2, 3, 4 HAVING count(*) > 1 LIMIT 10`,
    )
    submittedFailures.push(...duplicates)
    const unknownSubmitted = batchRows.filter(
      (b) => b.status === 'Submitted' && !ledger.batches.has(b.transaction_batch_token),
    )
    submittedFailures.push(...unknownSubmitted.map((b) => ({ submittedButUnknownToTheLedger: b })))
    add(
      'every batch answered 200 Submitted is held exactly once with all its records',
      submittedFailures,
      `${submittedBatches} submitted batches (${[...ledger.batches.values()].filter((b) => b.submittedUnacknowledged).length} committed without an answer); ${heldRows.length} held versions`,
    )

    // 3. No validation or assessment result duplicated, and each completed run's results are its count.
    const validationDuplicates = await rows(
      `SELECT rto_id, run_id::text, attempt, technical_rule_id, resource_type, resource_uid::text, count(*)::int AS n
         FROM validation_result
        GROUP BY rto_id, run_id, attempt, technical_rule_id, resource_type, resource_uid, access_path, message
       HAVING count(*) > 1 LIMIT 10`,
    )
    const validationCounts = await rows(
      `SELECT r.rto_id, r.run_id::text, r.result_count, count(v.seq)::int AS stored
         FROM validation_run r LEFT JOIN validation_result v
           ON v.rto_id = r.rto_id AND v.run_id = r.run_id AND v.attempt = r.attempt
        WHERE r.status = 'Validated'
          -- the batch's run completed last: its completion deletes the results of the batch's other runs
          AND r.completed_at = (SELECT max(l.completed_at) FROM validation_run l
                                 WHERE l.rto_id = r.rto_id AND l.transaction_batch_token = r.transaction_batch_token
                                   AND l.status = 'Validated')
        GROUP BY r.rto_id, r.run_id, r.result_count
       HAVING count(v.seq) <> r.result_count LIMIT 10`,
    )
    const seenTwice = p.clients.filter((c) => c.report.duplicateResultsSeen > 0).map((c) => c.report)
    const [{ runs, results }] = (await rows<{ runs: number; results: number }>(
      `SELECT (SELECT count(*)::int FROM validation_run WHERE status = 'Validated') AS runs,
              (SELECT count(*)::int FROM validation_result) AS results`,
    )) as [{ runs: number; results: number }]
    add(
      'no validation result duplicated',
      [...validationDuplicates, ...validationCounts, ...seenTwice],
      `${runs} completed validation runs, ${results} result rows`,
    )
    const assessmentDuplicates = await rows(
      `SELECT rto_id, run_id::text, attempt, technical_rule_id, resource_type, resource_uid::text, count(*)::int AS n
         FROM assessment_result
        GROUP BY rto_id, run_id, attempt, technical_rule_id, resource_type, resource_uid, message
       HAVING count(*) > 1 LIMIT 10`,
    )
    const assessmentRuns = await rows<{ rto_id: string; runs: number }>(
      `SELECT rto_id, count(*)::int AS runs FROM assessment_run GROUP BY rto_id`,
    )
    const runsByRto = new Map(assessmentRuns.map((r) => [r.rto_id, r.runs]))
    const [{ assessmentResults }] = (await rows<{ assessmentResults: number }>(
      `SELECT count(*)::int AS "assessmentResults" FROM assessment_result`,
    )) as [{ assessmentResults: number }]
    const fewerRuns = [...ledger.assessmentsRequested].filter(([rto, n]) => (runsByRto.get(rto) ?? 0) < 1 || n < 1)
    add(
      'no assessment result duplicated; every assessment the clients ran is there',
      [...assessmentDuplicates, ...fewerRuns.map(([rto]) => ({ rto, assessmentRuns: runsByRto.get(rto) ?? 0 }))],
      `${[...runsByRto.values()].reduce((a, b) => a + b, 0)} assessment runs, ${assessmentResults} result rows`,
    )

    // 4. Reconciliation through the API equal to the held dataset, per RTO (and to the ledger's expectation).
    const reconciliationFailures: unknown[] = []
    let heldCount = 0
    for (const client of p.clients) {
      const rto = client.report.rto
      const expected = new Map<string, string | null>()
      for (const h of heldRows)
        if (h.rto_id === rto && h.is_current && h.state === 'In submission' && h.type !== 'DeliveryLocation')
          expected.set(`${h.type}|${h.uid}`, h.cti)
      heldCount += expected.size
      const actual = new Map<string, string | null>()
      try {
        for (const resourceType of RESOURCE_TYPES)
          for await (const item of client.vetrs.searchByPeriod({ resourceType, reportingPeriods: [REPORTING_PERIOD] }))
            actual.set(`${resourceType}|${item.resourceUID.toLowerCase()}`, item.changeTrackingIdentifier)
      } catch (error) {
        reconciliationFailures.push({ rto, searchByPeriodFailed: (error as Error).message })
        continue
      }
      const onlyHeld = [...expected.keys()].filter((k) => !actual.has(k))
      const onlyReconciled = [...actual.keys()].filter((k) => !expected.has(k))
      const versions = [...expected].filter(([k, cti]) => actual.has(k) && actual.get(k) !== cti)
      // And what the SMS itself believes it holds (every held student set, voids applied).
      const believed = client.held.flatMap((set) => [set.student, set.programEnrolment, set.subjectEnrolment])
      const notBelieved = believed.filter((r) => {
        const uid = String(r.subjectEnrolmentUID ?? r.programEnrolmentUID ?? r.studentUID ?? '')
        const type = r.subjectEnrolmentUID ? 'SubjectEnrolment' : r.programEnrolmentUID ? 'ProgramEnrolment' : 'Student'
        if (client.voided.has(uid)) return actual.has(`${type}|${uid}`)
        return actual.get(`${type}|${uid}`) !== r.changeTrackingIdentifier
      })
      if (onlyHeld.length || onlyReconciled.length || versions.length || notBelieved.length)
        reconciliationFailures.push({
          rto,
          onlyHeld: onlyHeld.slice(0, 3),
          onlyReconciled: onlyReconciled.slice(0, 3),
          versions: versions.slice(0, 3),
          smsDisagrees: notBelieved.length,
        })
    }
    add(
      'reconciliation through the API equals the held dataset, per RTO',
      reconciliationFailures,
      `${heldCount} held records (current, not voided) over ${p.clients.length} RTOs, period ${REPORTING_PERIOD}`,
    )

    // 5. Declarations as acknowledged: each saved, the latest one of each period current.
    const declarationRows = await rows<{ rto_id: string; name: string; is_current: boolean }>(
      'SELECT rto_id, rto_user_name AS name, is_current FROM declaration',
    )
    const declarationFailures: unknown[] = []
    const latest = new Map<string, string>()
    for (const d of ledger.declarations) {
      if (!declarationRows.some((row) => row.rto_id === d.rto && row.name === d.userName))
        declarationFailures.push({ missing: d })
      latest.set(`${d.rto}|${d.jurisdiction}|${d.period}`, d.userName)
    }
    for (const [key, name] of latest) {
      const rto = key.split('|')[0]
      const current = declarationRows.filter((row) => row.rto_id === rto && row.is_current)
      if (current.length !== 1 || current[0]!.name !== name)
        declarationFailures.push({ rto, expectedCurrent: name, current: current.map((c) => c.name) })
    }
    add(
      'declarations as acknowledged',
      declarationFailures,
      `${ledger.declarations.length} declarations acknowledged, ${declarationRows.length} stored`,
    )

    // 6. The events (issue 33): each RTO's change feed held to the ledger and to the database.
    const { events, feeds } = await eventChecks({ clients: p.clients, ledger, rows, add })
    if (p.webhooks) await webhookCheck({ clients: p.clients, feeds, add, ...p.webhooks })
    if (p.natsUrl) await streamCheck({ natsUrl: p.natsUrl, feeds, add })

    // 7. No 5xx but 503 while the database was cut (and the load balancer took the API processes back),
    // and 502 for a request in flight on an API process when it was killed.
    const fiveXx = classify(p.observations, p.faults, p.graceMs)
    add(
      'no 5xx but the ones a fault explains',
      fiveXx.filter((f) => !f.allowed),
      `${fiveXx.length} 5xx answers: ${summarise(fiveXx.map((f) => `${f.status} ${f.classification}`))}`,
    )

    // 8. Every client finished its workflows.
    const unfinished = p.clients
      .map((c) => c.report)
      .filter((r) => r.failed || r.completed.length !== r.planned.length)
      .map((r) => ({ rto: r.rto, failed: r.failed, planned: r.planned.length, completed: r.completed.length }))
    add(
      'every client finished its workflows',
      unfinished,
      `${p.clients.length} clients, ${p.clients.reduce((n, c) => n + c.report.completed.length, 0)} workflows completed`,
    )

    // 9. Faults were injected as scheduled (a failed restart is a failed run).
    add(
      'every fault was injected and recovered from',
      p.faults.filter((f) => f.error),
      `${p.faults.length} faults`,
    )
    return { checks, fiveXx, held: heldCount, events }
  } finally {
    await db.end()
  }
}

function classify(observations: Observation[], faults: Fault[], graceMs: number): FiveXx[] {
  const out: FiveXx[] = []
  for (const o of observations) {
    if (typeof o.status !== 'number' || o.status < 500) continue
    const during = (kinds: string[], extraMs: number) =>
      faults.find((f) => kinds.includes(f.kind) && o.end >= f.start && o.start <= f.recovered + extraMs)
    let classification = 'unexplained'
    let allowed = false
    const fromBalancer = o.servedBy === null
    if (o.status === 503) {
      const cut = during(['db-cut'], graceMs)
      // Only the service answers for the replica: readiness does not depend on it, so HAProxy keeps every API process.
      const replicaCut = fromBalancer ? undefined : during(['replica-cut'], graceMs)
      if (cut) {
        classification = fromBalancer
          ? 'database cut: no API process ready (HAProxy)'
          : 'database cut: the service could not reach its database'
        allowed = true
      } else if (replicaCut) {
        classification = 'replica cut: a read routed to the replica could not reach it'
        allowed = true
      } else
        classification = fromBalancer
          ? 'no API process ready (HAProxy), no database cut'
          : '503 from the service, no database cut'
    } else if (o.status === 502 || o.status === 504) {
      // In flight on the process at the moment it was killed: the balancer lost the connection mid-request.
      const killed = faults.find((f) => f.kind === 'kill-api' && o.start <= f.start + 50 && o.end >= f.start)
      if (killed) {
        classification = `API process killed in flight (${killed.target})`
        allowed = true
      } else classification = `${o.status} from the load balancer, no API process killed then`
    } else classification = `${o.status} from the service`
    out.push({
      at: o.start,
      rto: o.rto,
      endpoint: o.endpoint,
      status: o.status,
      servedBy: o.servedBy,
      classification,
      allowed,
      ...(o.body ? { body: o.body } : {}),
    })
  }
  return out
}

export function summarise(items: string[]): string {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return [...counts].map(([item, n]) => `${n} x ${item}`).join('; ') || 'none'
}
