// `node bench/webhooks.ts` (issue 33; not part of `npm run bench`): webhook latency from an event's
// commit to its first delivery attempt reaching the receiver. BENCH_RTOS RTOs each with one endpoint
// (a receiver on loopback answering 204 at once); events are committed one per transaction at
// BENCH_RATE per second for BENCH_SECONDS, spread over the RTOs, while the delivery loop runs as it
// does in a worker (idle poll 200 ms). Embedded database in memory, or with DATABASE_URL a fresh
// PostgreSQL database (dropped after). Prints p50, p99 and max in milliseconds.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { createService } from '../src/app.ts'
import { loadConfig } from '../src/config/config.ts'
import { recordEvent } from '../src/modules/events/index.ts'
import { startWebhookDelivery, webhookSettingsOf } from '../src/modules/webhooks/index.ts'
import { positiveInteger } from './settings.ts'

const settings = {
  rate: positiveInteger('BENCH_RATE', 100, 10_000),
  seconds: positiveInteger('BENCH_SECONDS', 15, 3_600),
  rtos: positiveInteger('BENCH_RTOS', 10, 1_000),
}
const adminUrl = process.env.DATABASE_URL || undefined

let databaseUrl: string | undefined
let dropDatabase = async () => {}
if (adminUrl) {
  const name = `vetrs_bench_webhooks_${randomUUID().slice(0, 8)}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  databaseUrl = url.href
  dropDatabase = async () => {
    const again = new pg.Client({ connectionString: adminUrl })
    await again.connect()
    await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await again.end()
  }
}
const config = loadConfig({
  LOG_LEVEL: 'silent',
  PORT: '0',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: 'memory://' }),
})
const service = await createService(config, { workers: false })
const arrived = new Map<string, number>()
const receiver = createServer((request, response) => {
  const id = String(request.headers['webhook-id'])
  if (!arrived.has(id)) arrived.set(id, performance.now())
  request.resume()
  request.on('end', () => response.writeHead(204).end())
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
const db = service.database.db
const rtos = Array.from({ length: settings.rtos }, (_, i) => `W${String(i).padStart(5, '0')}`)
for (const rto of rtos)
  await db
    .insertInto('webhook_endpoint')
    .values({
      endpoint_id: randomUUID(),
      rto_id: rto,
      url,
      event_types: [],
      description: '',
      secret: `plain.whsec_${Buffer.alloc(32, 5).toString('base64')}`,
      position: '0',
      created_by: 'bench',
    })
    .execute()
const delivery = startWebhookDelivery({
  db,
  logger: service.logger,
  policy: webhookSettingsOf(config.webhooks).policy,
  timeoutMs: 10_000,
  retryScheduleMs: config.webhooks.retryScheduleMs,
  secretsKey: undefined,
})
try {
  const committed = new Map<string, number>()
  const total = settings.rate * settings.seconds
  const started = performance.now()
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / settings.rate
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    const { id } = await db.transaction().execute((tx) =>
      recordEvent(tx, {
        rto: rtos[n % rtos.length],
        type: 'au.gov.vetrs.batch.created',
        subject: `NSW/transaction-batch/bench${n}`,
        jurisdiction: 'NSW',
        data: { transactionBatchToken: `bench${n}`, clientId: 'bench' },
      }),
    )
    committed.set(id, performance.now())
  }
  const achieved = total / ((performance.now() - started) / 1000)
  if (process.env.BENCH_DEBUG) console.error(`delivered when writing ended: ${arrived.size} of ${total}`)
  const deadline = performance.now() + 60_000
  while (arrived.size < total && performance.now() < deadline) await sleep(50)
  if (arrived.size < total) throw new Error(`${arrived.size} of ${total} events delivered within 60 s`)
  const latencies = [...committed].map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b)
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!)
  console.log(
    JSON.stringify({
      database: databaseUrl ? 'postgres' : 'pglite',
      events: total,
      rtos: settings.rtos,
      targetRate: settings.rate,
      achievedRate: Math.round(achieved),
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: Math.round(latencies.at(-1)!),
    }),
  )
} finally {
  await delivery.stop()
  receiver.closeAllConnections()
  receiver.close()
  await service.close()
  await dropDatabase()
}
