// `node bench/relay.ts` (issue 33; not part of `npm run bench`): the relay's rate from the outbox to
// NATS JetStream. Writes BENCH_EVENTS events (spread over BENCH_RTOS RTOs, through recordEvent in
// transactions of 100) with no relay running, starts a nats-server of its own on a free port and data
// directory (/usr/sbin/nats-server, killed by its pid at the end), then starts the relay and times it
// until every event is acknowledged by the stream and its position stored. Embedded database in memory,
// or with DATABASE_URL a fresh PostgreSQL database (dropped after). Prints events per second.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import pg from 'pg'
import { createService } from '../src/app.ts'
import { loadConfig } from '../src/config/config.ts'
import { recordEvent, startNatsRelay } from '../src/modules/events/index.ts'
import { freePort } from '../test/support/child-service.ts'
import { positiveInteger } from './settings.ts'

const settings = {
  events: positiveInteger('BENCH_EVENTS', 20_000, 1_000_000),
  rtos: positiveInteger('BENCH_RTOS', 20, 10_000),
}
const STREAM = 'VETRS_EVENTS_BENCH'
const adminUrl = process.env.DATABASE_URL || undefined

let databaseUrl: string | undefined
if (adminUrl) {
  const name = `vetrs_bench_relay_${randomUUID().slice(0, 8)}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  databaseUrl = url.href
}
const config = loadConfig({
  LOG_LEVEL: 'silent',
  PORT: '0',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: 'memory://' }),
})
const service = await createService(config, { workers: false })
const dir = await mkdtemp(join(tmpdir(), 'vetrs-bench-nats-'))
const port = await freePort()
const nats = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
  stdio: 'ignore',
})
try {
  const db = service.database.db
  let written = 0
  const writeStarted = performance.now()
  while (written < settings.events) {
    await db.transaction().execute(async (tx) => {
      for (let i = 0; i < 100 && written < settings.events; i++, written++)
        await recordEvent(tx, {
          rto: `B${String(written % settings.rtos).padStart(5, '0')}`,
          type: 'au.gov.vetrs.batch.created',
          subject: `NSW/transaction-batch/bench${written}`,
          jurisdiction: 'NSW',
          data: { transactionBatchToken: `bench${written}`, clientId: 'bench' },
        })
    })
  }
  const writeSeconds = (performance.now() - writeStarted) / 1000
  await sleep(500) // the server's listener
  const url = `nats://127.0.0.1:${port}`
  const started = performance.now()
  const relay = startNatsRelay({ db, logger: service.logger, url, stream: STREAM, idleMs: 5 })
  await relay.idle()
  const seconds = (performance.now() - started) / 1000
  await relay.stop()
  const nc = await connect({ servers: url })
  const messages = (await (await jetstreamManager(nc)).streams.info(STREAM)).state.messages
  await nc.close()
  if (messages !== settings.events) throw new Error(`${messages} messages in the stream, ${settings.events} expected`)
  console.log(
    JSON.stringify({
      database: databaseUrl ? 'postgres' : 'pglite',
      ...settings,
      outboxWritesPerSecond: Math.round(settings.events / writeSeconds),
      relaySeconds: Number(seconds.toFixed(2)),
      relayEventsPerSecond: Math.round(settings.events / seconds),
    }),
  )
} finally {
  if (nats.pid !== undefined && nats.exitCode === null) process.kill(nats.pid, 'SIGKILL')
  await service.close()
  await rm(dir, { recursive: true, force: true })
  if (adminUrl && databaseUrl) {
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`)
    await admin.end()
  }
}
