// `npm run chaos`: the production topology of `npm run cluster` under load and faults, held to what it
// acknowledged (docs/operations.md, "The chaos run"; docs/decisions.md, "Chaos run (issue 21)").
//
// It starts the cluster with a loopback TCP proxy between the service processes and the primary,
// registers an API client per RTO through the operators' CLI, and runs one simulated SMS per RTO
// (scripts/chaos/sms.ts) through the load balancer with the SDK, while a fault injector
// (scripts/chaos/faults.ts) SIGKILLs API and worker processes and restarts them, cuts the database
// and kills Redis (and the cluster's nats-server, where installed), on a seeded schedule; a webhook
// receiver of its own (scripts/chaos/webhook-receiver.ts) gets every RTO's events, failing and
// stalling at random. Then it stops the faults, lets the clients finish and the system settle, checks
// the service against its ledger of acknowledged operations (scripts/chaos/checks.ts; the change
// feeds, the deliveries and the stream in event-checks.ts and stream-checks.ts), prints counts and
// latencies, stops everything it started, and exits 0 only when every check passed.
//
//   npm run chaos                                 about 3 minutes of load, 12 RTOs
//   npm run chaos -- --short                      the CI form: about 75 s of load, 8 RTOs
//   npm run chaos -- --seconds 300 --rtos 20 --seed 7 --apis 3 --workers 2 --keep --json
import { parseArgs } from 'node:util'
import { readOptions, wholeNumberOption } from './cluster/command-line.ts'
import { natsServerBinary, PrerequisiteError, StartFailed, startCluster, type Cluster } from './cluster/cluster.ts'
import { connect, runChecks, settle, summarise, type Check, type FiveXx } from './chaos/checks.ts'
import { settleWebhooks, type ChaosEndpoint } from './chaos/event-checks.ts'
import { FAULT_KINDS, type FaultKind, injectFaults, NATS_FAULT } from './chaos/faults.ts'
import { Ledger, submitsInFlight, type Observation } from './chaos/ledger.ts'
import { Random } from './chaos/records.ts'
import { registerClients } from './chaos/registration.ts'
import { latencyByEndpoint, latencyTable } from './chaos/report.ts'
import { Sms } from './chaos/sms.ts'
import { settleRelay } from './chaos/stream-checks.ts'
import { WebhookReceiver } from './chaos/webhook-receiver.ts'

const USAGE = `usage: npm run chaos -- [--seconds S] [--rtos N] [--seed SEED] [--apis N] [--workers M] [--short] [--no-webhooks] [--no-nats] [--keep] [--json]

  --seconds S   seconds of load with faults (default 180; --short 75); clients then finish what they started
  --rtos N      simulated SMSs, one RTO each (default 12; --short 8)
  --seed SEED   the seed of records, workflows and the fault schedule (default: drawn, and printed)
  --apis N      API processes behind the load balancer (default 2)
  --workers M   worker processes (default 2)
  --short       the CI form (75 s, 8 RTOs, smaller bulk uploads)
  --no-webhooks no webhook endpoints and receiver (the change feed is checked either way)
  --no-nats     no nats-server of the run's own for the relay (JetStream; by default one runs where
                nats-server is installed, killed and restarted as a fault, its stream checked against the feeds)
  --keep        keep the cluster's directory (data and logs) after stopping
  --json        print the summary as one JSON document on stdout (the log goes to stderr)`

function parse() {
  return parseArgs({
    options: {
      seconds: { type: 'string' },
      rtos: { type: 'string' },
      seed: { type: 'string' },
      apis: { type: 'string', default: '2' },
      workers: { type: 'string', default: '2' },
      short: { type: 'boolean', default: false },
      webhooks: { type: 'boolean', default: true },
      // On where nats-server is installed (/usr/sbin on Debian); --no-nats leaves it out.
      nats: { type: 'boolean', default: natsServerBinary() !== undefined },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowNegative: true,
  })
}
const values = readOptions(parse, USAGE)
const count = wholeNumberOption(USAGE)
const seconds = count('seconds', values.seconds ?? (values.short ? '75' : '180'), 30, 3600)
const rtoCount = count('rtos', values.rtos ?? (values.short ? '8' : '12'), 1, 200)
const seed = count('seed', values.seed ?? String(Math.floor(Math.random() * 1_000_000)), 0, 2 ** 31)
const apis = count('apis', values.apis, 2, 16)
const workers = count('workers', values.workers, 1, 16)
const out = values.json ? process.stderr : process.stdout
const say = (line: string) => out.write(`[chaos] ${line}\n`)

/** Past the load: clients get this long to finish what they started, then the system this long to settle. */
const DRAIN_MS = 150_000
const SETTLE_MS = 60_000
/** The whole run, start to stop, is bounded: past this everything is stopped and the run fails. */
const HARD_LIMIT_MS = (seconds + 420) * 1000

// Faster takeover of a validation whose worker was killed (the default is about a minute), so that a
// run of minutes sees it complete; any other service setting passes through from the environment.
process.env.QUEUE_HEARTBEAT_SECONDS ??= '10'
process.env.QUEUE_SUPERVISE_INTERVAL_SECONDS ??= '5'
// Webhooks to the run's own receiver on loopback (over http), a short timeout the receiver's stalls
// outlast, and retries that end inside the drain (the default schedule spans a day).
if (values.webhooks) {
  process.env.WEBHOOK_ALLOW_PRIVATE ??= 'true'
  process.env.WEBHOOK_ALLOW_HTTP ??= 'true'
  process.env.WEBHOOK_TIMEOUT_SECONDS ??= '2'
  process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS ??= '1,2,4,8,16,32'
}
/** Past settling, the webhook deliveries get this long to reach the receiver. */
const WEBHOOK_SETTLE_MS = 60_000
const receiver = values.webhooks
  ? new WebhookReceiver({
      // Its own stream of the seed, so the clients' and the fault injector's draws stay as they were.
      random: new Random(seed ^ 0x5eed),
      failRate: 0.1,
      stallRate: 0.05,
      stallMs: 3000,
    })
  : undefined

const faultKinds: FaultKind[] = values.nats ? [...FAULT_KINDS, NATS_FAULT] : [...FAULT_KINDS]

const abort = new AbortController()
let cluster: Cluster | undefined
const onSignal = (signal: string) => {
  say(`${signal}: stopping`)
  abort.abort()
  void stopAndExit(130)
}
process.on('SIGINT', () => onSignal('SIGINT'))
process.on('SIGTERM', () => onSignal('SIGTERM'))
const hardLimit = setTimeout(() => {
  say(`the run did not end within ${HARD_LIMIT_MS / 1000} s: stopping everything`)
  abort.abort()
  void stopAndExit(1)
}, HARD_LIMIT_MS)

/** Every process the cluster spawned in this run (restarted ones too), for the summary. */
const spawned: { name: string; pid: number }[] = []
let summary: Record<string, unknown> | undefined

let stopping: Promise<void> | undefined
async function stopAndExit(code: number): Promise<never> {
  stopping ??= (async () => {
    await receiver?.stop()
    if (cluster) {
      const report = await cluster.stop()
      const clean = report.stillAlive.length === 0 && report.portsHeld.length === 0
      if (!clean) code = 1
      if (summary) {
        summary.cluster = { dir: cluster.dir, processes: spawned, ports: cluster.ports, stop: report }
        if (!clean) summary.ok = false
      }
    }
    // The JSON summary last, once everything is stopped: what a test or CI reads.
    if (summary && values.json) process.stdout.write(`${JSON.stringify(summary)}\n`)
  })()
  await stopping
  clearTimeout(hardLimit)
  process.exit(code)
}

const runStarted = Date.now()
let exitCode = 1
try {
  say(`seed ${seed}: ${seconds} s of load, ${rtoCount} RTOs, ${apis} API and ${workers} worker processes`)
  cluster = await startCluster(
    {
      apis,
      workers,
      lbPort: 0,
      keep: values.keep,
      migrateFirst: true,
      databaseProxy: true,
      nats: values.nats,
      log: (line) => say(`cluster: ${line}`),
      onSpawned: (managed) => spawned.push({ name: managed.spec.name, pid: managed.pid }),
      onUnexpectedExit: (managed, how) => say(`${managed.spec.name} (pid ${managed.pid}) ended unexpectedly (${how})`),
    },
    abort.signal,
  )
  const random = new Random(seed)
  const rtos = Array.from({ length: rtoCount }, (_, i) => String(91001 + i))
  const registered = await registerClients(cluster, rtos)
  say(`registered ${registered.length} API clients through the CLI (clients add chaos-sms-<rto> --rto <rto>)`)

  const ledger = new Ledger()
  const observations: Observation[] = []
  const t0 = Date.now()
  const clock = () => Date.now() - t0
  const loadEndsAt = seconds * 1000
  // The load lasts its planned seconds and, past them, until every fault kind has been injected under
  // it (at most 5 minutes more): on a loaded machine recoveries take longer, and a short run in CI once
  // ended before its last kind.
  let everyKindAt: number | undefined
  const LOAD_EXTENSION_MAX_MS = 300_000
  const loadEnds = () =>
    Math.min(
      loadEndsAt + LOAD_EXTENSION_MAX_MS,
      everyKindAt === undefined ? Math.max(loadEndsAt, clock() + 1000) : Math.max(loadEndsAt, everyKindAt),
    )
  const clients = registered.map(
    (r) =>
      new Sms({
        rto: r.rto,
        clientId: r.clientId,
        clientSecret: r.clientSecret,
        baseUrl: cluster!.lbUrl,
        random: random.fork(),
        ledger,
        clock,
        observe: (o) => observations.push(o),
        log: (line) => say(line),
        bulkStudents: values.short ? [10, 60] : [20, 200],
        loadEndsAt: loadEnds,
        giveUpAt: () => loadEnds() + DRAIN_MS,
      }),
  )
  const endpoints = new Map<string, ChaosEndpoint>()
  if (receiver) {
    await receiver.start()
    for (const client of clients) {
      const created = await client.vetrs.addWebhookEndpoint({
        url: receiver.urlFor(client.report.rto),
        description: 'the chaos run receiver',
      })
      receiver.trust(client.report.rto, created.secret)
      endpoints.set(client.report.rto, { endpointId: created.endpointId, startAfter: Number(created.deliveredThrough) })
    }
    say(`webhook receiver on 127.0.0.1:${receiver.port}: an endpoint per RTO, 10 % answered 500, 5 % stalled 3 s`)
  }
  const stopFaults = new AbortController()
  const faultsDone = injectFaults(
    {
      cluster,
      random: random.fork(),
      clock,
      log: say,
      from: 5000,
      until: loadEndsAt - 8000,
      gapMs: values.short ? [3000, 6000] : [5000, 12_000],
      submitsInFlight,
      kinds: faultKinds,
      onEveryKind: () => {
        everyKindAt = clock()
      },
    },
    stopFaults.signal,
  )
  const reports = await Promise.all(clients.map((client) => client.run()))
  const loadSeconds = clock() / 1000
  stopFaults.abort()
  receiver?.calm()
  const faults = await faultsDone
  say(`load done in ${loadSeconds.toFixed(1)} s; ${faults.length} faults; settling`)
  const settled = await settle(cluster, SETTLE_MS)
  say(
    `settled in ${(settled.ms / 1000).toFixed(1)} s${settled.ok ? '' : ' (NOT: reconciliation or the replica still behind)'}`,
  )

  let webhooksSettled: { ms: number; ok: boolean } | undefined
  let relaySettled: { ms: number; ok: boolean } | undefined
  if (receiver || cluster.natsUrl) {
    const db = await connect(cluster.primary.superuserDsn.replace(/\/postgres$/, '/vetrs'))
    try {
      const rows = async <R>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as R[]
      if (receiver) {
        webhooksSettled = await settleWebhooks(rows, receiver, endpoints, WEBHOOK_SETTLE_MS)
        say(
          `webhooks delivered ${webhooksSettled.ok ? '' : 'NOT all '}in ${(webhooksSettled.ms / 1000).toFixed(1)} s more`,
        )
      }
      if (cluster.natsUrl) {
        relaySettled = await settleRelay(rows, rtos, WEBHOOK_SETTLE_MS)
        say(
          `relay to JetStream ${relaySettled.ok ? '' : 'NOT '}caught up in ${(relaySettled.ms / 1000).toFixed(1)} s more`,
        )
      }
    } finally {
      await db.end()
    }
  }

  const { checks, fiveXx, held, events } = await runChecks({
    cluster,
    ledger,
    clients,
    observations,
    faults,
    graceMs: 3000,
    ...(receiver ? { webhooks: { receiver, endpoints } } : {}),
    ...(cluster.natsUrl ? { natsUrl: cluster.natsUrl } : {}),
  })
  checks.push({
    name: 'faults of every kind were injected',
    ok: faultKinds.every((kind) => faults.some((f) => f.kind === kind)),
    detail: summarise(faults.map((f) => f.kind)),
  })
  checks.push({
    name: 'the system settled (every submission reconciled, the replica caught up)',
    ok: settled.ok,
    detail: `${(settled.ms / 1000).toFixed(1)} s`,
  })
  if (webhooksSettled)
    checks.push({
      name: 'the webhooks settled (every event delivered)',
      ok: webhooksSettled.ok,
      detail: `${(webhooksSettled.ms / 1000).toFixed(1)} s after the system settled`,
    })
  if (relaySettled)
    checks.push({
      name: 'the relay to JetStream caught up (every RTO published to its last event)',
      ok: relaySettled.ok,
      detail: `${(relaySettled.ms / 1000).toFixed(1)} s after the webhooks settled`,
    })
  const latency = latencyByEndpoint(observations, faults)
  const ok = checks.every((c) => c.ok)
  const acknowledgedUploads = ledger.uploads.size
  const result = {
    ok,
    seed,
    options: {
      seconds,
      rtos: rtoCount,
      apis,
      workers,
      short: values.short,
      webhooks: values.webhooks,
      nats: values.nats,
    },
    durationSeconds: Math.round((Date.now() - runStarted) / 100) / 10,
    loadSeconds: Math.round(loadSeconds * 10) / 10,
    settleSeconds: Math.round(settled.ms / 100) / 10,
    operations: Object.fromEntries([...ledger.operations].sort()),
    requests: {
      attempts: observations.length,
      byStatus: Object.fromEntries(
        [...countBy(observations.map((o) => String(o.status)))].sort((a, b) => a[0].localeCompare(b[0])),
      ),
      // Retries of a POST answered with the first answer (its Idempotency-Key), by endpoint.
      replayed: Object.fromEntries(countBy(observations.filter((o) => o.replayed).map((o) => o.endpoint))),
      // 409s answered while the first request with the key was still running (or its process had died).
      keyInProgress: Object.fromEntries(countBy(observations.filter((o) => o.keyInProgress).map((o) => o.endpoint))),
    },
    faults: {
      byKind: Object.fromEntries(countBy(faults.map((f) => f.kind))),
      list: faults.map((f) => ({
        kind: f.kind,
        target: f.target,
        atSeconds: f.start / 1000,
        downMs: f.downMs,
        recoveredAfterMs: f.recovered - f.start,
        ...(f.error ? { error: f.error } : {}),
      })),
    },
    records: {
      acknowledgedUploads,
      batches: ledger.batches.size,
      submittedBatches: [...ledger.batches.values()].filter((b) => b.submitted || b.submittedUnacknowledged).length,
      heldNow: held,
      voids: ledger.voids.length,
      declarations: ledger.declarations.length,
      events,
    },
    // The receiver's attempts (answered 500, stalled past the timeout) and the verified deliveries.
    webhooks: receiver ? { ...receiver.counts, delivered: receiver.delivered.length } : null,
    checks,
    fiveXx,
    // Attempts that got no answer at all (connection refused or reset, or the SDK's timeout), and the fault they fell in.
    noAnswer: observations
      .filter((o) => typeof o.status !== 'number')
      .map((o) => ({
        atSeconds: o.start / 1000,
        rto: o.rto,
        endpoint: o.endpoint,
        status: o.status,
        fault: faults.find((f) => o.end >= f.start && o.start <= f.recovered)?.kind ?? null,
      })),
    latency,
    clients: reports.map((r) => ({
      rto: r.rto,
      planned: r.planned.length,
      completed: r.completed.length,
      ...(r.failed ? { failed: r.failed } : {}),
    })),
  }
  summary = result
  printSummary(result, checks, fiveXx)
  exitCode = ok ? 0 : 1
} catch (error) {
  if (error instanceof PrerequisiteError) {
    console.error(`npm run chaos needs what is not installed here:\n${error.message.replace(/^/gm, '  ')}`)
    exitCode = 3
  } else {
    console.error(`[chaos] failed: ${(error as Error).stack ?? error}`)
    if (error instanceof StartFailed) cluster = undefined
  }
}
await stopAndExit(exitCode)

function countBy(items: string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return counts
}

function printSummary(
  summary: {
    ok: boolean
    seed: number
    durationSeconds: number
    loadSeconds: number
    operations: Record<string, number>
    requests: { attempts: number; byStatus: Record<string, number> }
    faults: { byKind: Record<string, number> }
    records: Record<string, number>
    latency: Parameters<typeof latencyTable>[0]
    noAnswer: { status: number | string; fault: string | null }[]
  },
  checks: Check[],
  fiveXx: FiveXx[],
) {
  const lines = [
    '',
    `Chaos run, seed ${summary.seed}: ${summary.loadSeconds} s of load, ${summary.durationSeconds} s in all`,
    '',
    'Operations acknowledged:',
    ...Object.entries(summary.operations).map(([kind, n]) => `  ${String(n).padStart(7)}  ${kind}`),
    `Requests (attempts): ${summary.requests.attempts}; by status: ${Object.entries(summary.requests.byStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
    `Faults injected: ${Object.entries(summary.faults.byKind)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `Records: ${Object.entries(summary.records)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    '',
    'Latency per endpoint (time to the answer, ms):',
    latencyTable(summary.latency),
    '',
    `Attempts without an answer: ${summary.noAnswer.length}${summary.noAnswer.length ? ` (${summarise(summary.noAnswer.map((a) => `${a.status} during ${a.fault ?? 'no fault'}`))})` : ''}`,
    `5xx answers: ${fiveXx.length}`,
    ...fiveXx
      .slice(0, 30)
      .map(
        (f) =>
          `  ${(f.at / 1000).toFixed(1).padStart(6)} s  ${f.status}  ${f.endpoint}  rto ${f.rto}  ${f.allowed ? 'allowed' : 'NOT ALLOWED'}: ${f.classification}`,
      ),
    '',
    'Checks:',
    ...checks.map(
      (c) =>
        `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}${c.failures ? `\n        ${JSON.stringify(c.failures).slice(0, 1500)}` : ''}`,
    ),
    '',
    summary.ok ? 'All checks passed.' : 'SOME CHECKS FAILED.',
  ]
  out.write(`${lines.join('\n')}\n`)
}
