// `node bench/outbox.ts` (issue 33; not part of `npm run bench`): what the event outbox costs uploads
// and submits, side by side with the service as it was before it. BENCH_BASE_DIR names a copy of the
// service without the outbox (for example `git archive 23589a6 | tar -x -C /tmp/vetrs-base`, with
// this checkout's node_modules linked into it); both services run in this process on their own
// embedded database (or, with DATABASE_URL, a fresh PostgreSQL database each) and are called over
// loopback HTTP the same way. One cycle: create a batch (one event), upload BENCH_RECORDS Students one
// request each (no event), request validation and wait for it (one event; the wait is not timed: it
// is the queue's polling), submit (one or two events). Timed: create + uploads + submit. Rounds
// alternate the two services (order flipped every round); prints records per second of the timed part
// and the median create and submit latencies of each, and the ratio with/without.
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { demoAuth } from './demo-auth.ts'
import { UID_PLACEHOLDER } from './record.ts'
import { median, positiveInteger } from './settings.ts'
import { sampleStudentBody, uploadPath, UPLOAD_JURISDICTION } from './student.ts'

const settings = {
  records: positiveInteger('BENCH_RECORDS', 20, 1_000),
  cycles: positiveInteger('BENCH_CYCLES', 10, 1_000),
  rounds: positiveInteger('BENCH_ROUNDS', 3, 20),
}
const baseDir = process.env.BENCH_BASE_DIR
if (!baseDir) {
  console.error('BENCH_BASE_DIR: a copy of the service without the outbox is needed (see the comment at the top)')
  process.exit(2)
}

interface Target {
  name: string
  baseUrl: string
  auth: { authorization: string }
  close(): Promise<void>
}

async function startTarget(name: string, root: URL): Promise<Target> {
  const { createService } = (await import(new URL('src/app.ts', root).href)) as typeof import('../src/app.ts')
  const { loadConfig } = (await import(
    new URL('src/config/config.ts', root).href
  )) as typeof import('../src/config/config.ts')
  const database = process.env.DATABASE_URL
    ? { DATABASE_URL: await freshDatabase(process.env.DATABASE_URL) }
    : { DATA_DIR: 'memory://' }
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...database })
  const service = await createService(config, { workers: true })
  const address = await service.app.listen({ port: 0, host: '127.0.0.1' })
  return {
    name,
    baseUrl: address,
    auth: await demoAuth(address),
    async close() {
      await service.close()
      if (database.DATABASE_URL) await dropDatabase(process.env.DATABASE_URL!, database.DATABASE_URL)
    },
  }
}

async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`)
  await client.end()
}

async function freshDatabase(adminUrl: string): Promise<string> {
  const pg = (await import('pg')).default
  const name = `vetrs_bench_outbox_${randomUUID().slice(0, 8)}`
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  await client.query(`CREATE DATABASE ${name}`)
  await client.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.href
}

const body = sampleStudentBody()

async function call(target: Target, method: string, path: string, json?: string): Promise<any> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { ...target.auth, ...(json ? { 'content-type': 'application/json' } : {}) },
    ...(json ? { body: json } : {}),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${target.name} ${method} ${path}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

interface Cycle {
  timedMs: number
  createMs: number
  submitMs: number
}

async function cycle(target: Target): Promise<Cycle> {
  const batchesPath = `/vet-provider/v1/${UPLOAD_JURISDICTION}/transaction-batch`
  let started = performance.now()
  const { transactionBatchToken: token } = await call(target, 'POST', batchesPath)
  const createMs = performance.now() - started
  let timedMs = createMs
  started = performance.now()
  for (let i = 0; i < settings.records; i++)
    await call(target, 'POST', uploadPath(token), body.replace(UID_PLACEHOLDER, randomUUID()))
  timedMs += performance.now() - started
  const batchPath = `${batchesPath}/${token}`
  await call(target, 'POST', `${batchPath}/validate`)
  for (;;) {
    const status = await call(target, 'GET', `${batchPath}/validate`)
    if (status.validationStatus === 'Validated') {
      if (status.hasBlockingValidationFailures) throw new Error(`${target.name}: the sample has blocking failures`)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  started = performance.now()
  await call(target, 'POST', `${batchPath}/submit`)
  const submitMs = performance.now() - started
  return { timedMs: timedMs + submitMs, createMs, submitMs }
}

const withOutbox = await startTarget('with outbox', pathToFileURL(`${process.cwd()}/`))
const without = await startTarget('without', pathToFileURL(`${baseDir.replace(/\/$/, '')}/`))
try {
  const results = new Map<string, Cycle[]>([
    [withOutbox.name, []],
    [without.name, []],
  ])
  await cycle(withOutbox) // warm-up
  await cycle(without)
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? [withOutbox, without] : [without, withOutbox]
    for (const target of order)
      for (let i = 0; i < settings.cycles; i++) results.get(target.name)!.push(await cycle(target))
  }
  const summary = Object.fromEntries(
    [...results].map(([name, cycles]) => {
      const totalMs = cycles.reduce((sum, c) => sum + c.timedMs, 0)
      return [
        name,
        {
          recordsPerSecond: Math.round((cycles.length * settings.records * 1000) / totalMs),
          createMsP50: Number(median(cycles.map((c) => c.createMs)).toFixed(2)),
          submitMsP50: Number(median(cycles.map((c) => c.submitMs)).toFixed(2)),
          cycles: cycles.length,
        },
      ]
    }),
  )
  const on = summary[withOutbox.name]!
  const off = summary[without.name]!
  console.table(summary)
  console.log(
    JSON.stringify({
      database: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      settings,
      summary,
      throughputRatio: Number((on.recordsPerSecond / off.recordsPerSecond).toFixed(3)),
    }),
  )
} finally {
  await withOutbox.close()
  await without.close()
}
