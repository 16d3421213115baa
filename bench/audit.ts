// `node bench/audit.ts` (issue 33; not part of `npm run bench`): what the audit trail costs a record
// read, side by side with the service as it was before it. BENCH_BASE_DIR names a copy of the service
// without the audit trail (for example `git archive a3e048e | tar -x -C /tmp/vetrs-noaudit`, with this
// checkout's node_modules linked into it); both services run in this process on their own embedded
// database (or, with DATABASE_URL, a fresh PostgreSQL database each) and are called over loopback
// HTTP the same way. Each gets one batch with one Student; then BENCH_CONCURRENCY loops read it
// (`GET .../transaction-batch/{token}/student/{uid}`, audited as record.read: one more statement per
// read, on the day's chain head) BENCH_READS times in all. Rounds alternate the two services (order
// flipped every round); prints reads per second and the p50 and p99 latencies of each, and the ratio.
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { demoAuth } from './demo-auth.ts'
import { UID_PLACEHOLDER } from './record.ts'
import { median, positiveInteger } from './settings.ts'
import { createBatch, sampleStudentBody, uploadPath } from './student.ts'

const settings = {
  reads: positiveInteger('BENCH_READS', 2_000, 1_000_000),
  concurrency: positiveInteger('BENCH_CONCURRENCY', 8, 256),
  rounds: positiveInteger('BENCH_ROUNDS', 3, 20),
}
const baseDir = process.env.BENCH_BASE_DIR
if (!baseDir) {
  console.error('BENCH_BASE_DIR: a copy of the service without the audit trail is needed (see the comment at the top)')
  process.exit(2)
}

interface Target {
  name: string
  readPath: string
  baseUrl: string
  auth: { authorization: string }
  close(): Promise<void>
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

async function startTarget(name: string, root: URL): Promise<Target> {
  const { createService } = (await import(new URL('src/app.ts', root).href)) as typeof import('../src/app.ts')
  const { loadConfig } = (await import(
    new URL('src/config/config.ts', root).href
  )) as typeof import('../src/config/config.ts')
  const adminUrl = process.env.DATABASE_URL
  const databaseName = `vetrs_bench_audit_${randomUUID().slice(0, 8)}`
  let database: Record<string, string> = { DATA_DIR: 'memory://' }
  if (adminUrl) {
    await adminQuery(adminUrl, `CREATE DATABASE ${databaseName}`)
    const url = new URL(adminUrl)
    url.pathname = `/${databaseName}`
    database = { DATABASE_URL: url.href }
  }
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...database })
  const service = await createService(config, { workers: false })
  const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await demoAuth(baseUrl)
  const token = await createBatch(baseUrl, auth)
  const uid = randomUUID()
  const uploaded = await fetch(`${baseUrl}${uploadPath(token)}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: sampleStudentBody().replace(UID_PLACEHOLDER, uid),
  })
  if (uploaded.status !== 201) throw new Error(`${name}: upload ${uploaded.status} ${await uploaded.text()}`)
  return {
    name,
    readPath: `${uploadPath(token)}/${uid}`,
    baseUrl,
    auth,
    async close() {
      await service.close()
      if (adminUrl) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
    },
  }
}

interface Round {
  readsPerSecond: number
  p50: number
  p99: number
}

async function round(target: Target): Promise<Round> {
  const latencies: number[] = []
  let left = settings.reads
  const started = performance.now()
  await Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      while (left > 0) {
        left--
        const at = performance.now()
        const response = await fetch(`${target.baseUrl}${target.readPath}`, { headers: target.auth })
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`${target.name}: read ${response.status}`)
        latencies.push(performance.now() - at)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    readsPerSecond: settings.reads / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  }
}

const withAudit = await startTarget('with audit', new URL('../', import.meta.url))
const without = await startTarget('without', pathToFileURL(`${baseDir.replace(/\/$/, '')}/`))
try {
  // Warm both (JIT, statement plans) before timing.
  await round(withAudit)
  await round(without)
  const results = new Map<string, Round[]>([
    [withAudit.name, []],
    [without.name, []],
  ])
  for (let n = 0; n < settings.rounds; n++) {
    const order = n % 2 === 0 ? [withAudit, without] : [without, withAudit]
    for (const target of order) results.get(target.name)!.push(await round(target))
  }
  const summary = (name: string) => {
    const rounds = results.get(name)!
    return {
      readsPerSecond: median(rounds.map((r) => r.readsPerSecond)),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
    }
  }
  const a = summary(withAudit.name)
  const b = summary(without.name)
  console.log(
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${settings.rounds} rounds x ${settings.reads} reads, ${settings.concurrency} in flight`,
  )
  console.log(
    `with audit: ${a.readsPerSecond.toFixed(0)} reads/s, p50 ${a.p50.toFixed(2)} ms, p99 ${a.p99.toFixed(2)} ms`,
  )
  console.log(
    `without:    ${b.readsPerSecond.toFixed(0)} reads/s, p50 ${b.p50.toFixed(2)} ms, p99 ${b.p99.toFixed(2)} ms`,
  )
  console.log(`ratio (with / without reads/s): ${(a.readsPerSecond / b.readsPerSecond).toFixed(3)}`)
} finally {
  await withAudit.close()
  await without.close()
}
