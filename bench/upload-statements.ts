// `node bench/upload-statements.ts` (issue 30; not part of `npm run bench`): what one Student upload costs,
// counted where it is spent. The service runs in this process (createService, no queue workers, logging
// silent, no rate limit) on embedded PGlite in memory, or, with DATABASE_URL, in a fresh PostgreSQL
// database dropped afterwards; uploads go to it over loopback HTTP (fetch) into one batch. Two phases:
//  1. BENCH_SEQUENTIAL (20) uploads one at a time, each upload's statements captured: the statements per
//     upload, grouped by their text (round trips to the database, BEGIN and COMMIT included);
//  2. BENCH_BURSTS (3) bursts of BENCH_UPLOADS (1,000) uploads, BENCH_CONCURRENCY (20) in flight, after
//     BENCH_WARMUP (300) uploads: statements per upload under concurrency (the audit trail's group commit
//     writes entries together there), and the process's CPU time per upload (user + system, the service,
//     the client and, on PGlite, the database: all in this process; on PostgreSQL the server's CPU is
//     elsewhere) with the uploads per second. The median of the bursts is printed.
// BENCH_ROOT names another tree of the service (e.g. `git archive <commit> | tar -x -C /tmp/before`,
// node_modules linked in) to measure it the same way: run this file from one tree against both, in turn.
// Statements are captured at the transport: PGlite's execProtocolStream (each Parse or simple Query
// message is one statement) and pg.Client's query.
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { demoAuth } from './demo-auth.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { UID_PLACEHOLDER } from './record.ts'
import { median, positiveInteger } from './settings.ts'
import { createBatch, sampleStudentBody, uploadPath } from './student.ts'

const settings = {
  sequential: positiveInteger('BENCH_SEQUENTIAL', 20, 10_000),
  warmup: positiveInteger('BENCH_WARMUP', 300, 100_000),
  uploads: positiveInteger('BENCH_UPLOADS', 1_000, 1_000_000),
  bursts: positiveInteger('BENCH_BURSTS', 3, 50),
  concurrency: positiveInteger('BENCH_CONCURRENCY', 20, 1_000),
}
const root = process.env.BENCH_ROOT
  ? pathToFileURL(`${process.env.BENCH_ROOT.replace(/\/$/, '')}/`)
  : new URL('../', import.meta.url)

// ---- capture ----------------------------------------------------------------------------------------

let captured: string[] | undefined
const decoder = new TextDecoder()

const execProtocolStream = PGlite.prototype.execProtocolStream
PGlite.prototype.execProtocolStream = function (this: PGlite, message: Uint8Array, ...rest: unknown[]) {
  if (captured) {
    // Parse: 'P', length, statement name NUL, query NUL, ...; simple Query: 'Q', length, query NUL.
    if (message[0] === 0x50) {
      const nameEnd = message.indexOf(0, 5)
      captured.push(decoder.decode(message.subarray(nameEnd + 1, message.indexOf(0, nameEnd + 1))))
    } else if (message[0] === 0x51) {
      captured.push(decoder.decode(message.subarray(5, message.indexOf(0, 5))))
    }
  }
  return (execProtocolStream as (...args: unknown[]) => unknown).call(this, message, ...rest)
} as typeof execProtocolStream

const clientQuery = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]): any {
  if (captured) {
    const first = args[0] as string | { text: string; name?: string }
    captured.push(typeof first === 'string' ? first : first.text)
  }
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args)
}

const shape = (text: string) =>
  text
    .replace(/\/\*.*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 110)

// ---- the service --------------------------------------------------------------------------------------

interface Running {
  baseUrl: string
  headers: Record<string, string>
  path: string
  close(): Promise<void>
}

async function start(env: Record<string, string>): Promise<Running> {
  const { createService } = (await import(new URL('src/app.ts', root).href)) as typeof import('../src/app.ts')
  const { loadConfig } = (await import(
    new URL('src/config/config.ts', root).href
  )) as typeof import('../src/config/config.ts')
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const service = await createService(config, { workers: false })
  const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await demoAuth(baseUrl)
  const token = await createBatch(baseUrl, auth)
  return {
    baseUrl,
    headers: { ...auth, 'content-type': 'application/json' },
    path: uploadPath(token),
    close: () => service.close(),
  }
}

const [bodyBefore, bodyAfter] = sampleStudentBody().split(UID_PLACEHOLDER) as [string, string]

async function upload(service: Running): Promise<void> {
  const response = await fetch(`${service.baseUrl}${service.path}`, {
    method: 'POST',
    headers: service.headers,
    body: `${bodyBefore}${randomUUID()}${bodyAfter}`,
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${text}`)
}

async function burst(service: Running, count: number): Promise<void> {
  let left = count
  await Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      while (left > 0) {
        left--
        await upload(service)
      }
    }),
  )
}

async function measure(env: Record<string, string>, where: string): Promise<void> {
  const service = await start(env)
  try {
    await burst(service, 50) // plans, JIT
    const statements: string[] = []
    captured = statements
    for (let n = 0; n < settings.sequential; n++) await upload(service)
    captured = undefined
    const byShape = new Map<string, number>()
    for (const text of statements) byShape.set(shape(text), (byShape.get(shape(text)) ?? 0) + 1)
    console.log(`\n${where}, tree ${root.pathname}`)
    console.log(
      `one at a time: ${(statements.length / settings.sequential).toFixed(2)} statements per upload (${settings.sequential} uploads)`,
    )
    for (const [text, count] of [...byShape].sort((a, b) => b[1] - a[1]))
      console.log(`  ${(count / settings.sequential).toFixed(2)}  ${text}`)

    await burst(service, settings.warmup)
    const rounds: { cpuUs: number; perSecond: number; statements: number }[] = []
    for (let n = 0; n < settings.bursts; n++) {
      const inBurst: string[] = []
      captured = inBurst
      const cpu = process.cpuUsage()
      const started = performance.now()
      await burst(service, settings.uploads)
      const seconds = (performance.now() - started) / 1000
      const used = process.cpuUsage(cpu)
      captured = undefined
      rounds.push({
        cpuUs: (used.user + used.system) / settings.uploads,
        perSecond: settings.uploads / seconds,
        statements: inBurst.length / settings.uploads,
      })
    }
    const fmt = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(', ')
    console.log(
      `${settings.concurrency} in flight, ${settings.bursts} bursts of ${settings.uploads}: ` +
        `CPU us per upload ${median(rounds.map((r) => r.cpuUs)).toFixed(0)} (${fmt(rounds.map((r) => r.cpuUs))}); ` +
        `uploads/s ${median(rounds.map((r) => r.perSecond)).toFixed(0)} (${fmt(rounds.map((r) => r.perSecond))}); ` +
        `statements per upload ${median(rounds.map((r) => r.statements)).toFixed(2)}`,
    )
  } finally {
    await service.close()
  }
}

console.log(`load average at start: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`)
if (process.env.DATABASE_URL) {
  const adminUrl = process.env.DATABASE_URL
  await withFreshPostgres(adminUrl, (url) => measure({ DATABASE_URL: url }, 'PostgreSQL'))
} else {
  await measure({ DATA_DIR: 'memory://' }, 'PGlite (in memory)')
}
console.log(`load average at end: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`)
