// `node bench/upload-cost.ts` (issue 30, "profile where the remaining third goes"): what each part of
// the Student upload costs in the database. The upload (U of bench/run.ts, 50 connections) is run as
// built and with one part taken out of a throwaway database, the variants alternating in every round:
//   as built                 the service as it is;
//   without the kept counts  batch_record_count's triggers dropped (migrations 0036, 0047);
//   without the audit entry  audit_append answering at once (migrations 0040, 0042): no entry written.
// Taking a part out is a measurement, never a configuration: the counts and the audit trail are what
// the console and the operators rely on. Each run prints req/s, the CPU the service's process spent per
// upload and, on PostgreSQL, the CPU of the server's processes per upload (every `postgres` process of
// the machine: nothing else may use that server meanwhile), then medians and each variant's req/s
// against as built. On PGlite the database is the service's own thread: its CPU is the service's.
//   BENCH_RUNS=3 BENCH_SECONDS=8 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/upload-cost.ts
// PostgreSQL runs only with DATABASE_URL (a fresh database per run, dropped after it); PGlite always
// (in memory), unless BENCH_UPLOAD_COST_PGLITE=0. BENCH_UPLOAD_COST_VARIANTS=1 measures as built alone.
import { cpus } from 'node:os'
import { sql } from 'kysely'
import { withFreshPostgres } from './fresh-postgres.ts'
import { loadInChild } from './load-child.ts'
import { cpuMsOf, processesNamed } from './process-cpu.ts'
import { UID_PLACEHOLDER } from './record.ts'
import { median, positiveInteger } from './settings.ts'
import { table } from './table.ts'
import { startService, startUpload } from './targets.ts'

const settings = {
  runs: positiveInteger('BENCH_RUNS', 3, 20),
  seconds: positiveInteger('BENCH_SECONDS', 8, 120),
  connections: positiveInteger('BENCH_UPLOAD_CONNECTIONS', 50, 500),
}
const WARMUP_SECONDS = 2
const adminUrl = process.env.DATABASE_URL || undefined
const pglite = process.env.BENCH_UPLOAD_COST_PGLITE !== '0'

/** Each variant: the statements that take its part out (none for as built). */
const ALL_VARIANTS: { name: string; takeOut: string[] }[] = [
  { name: 'as built', takeOut: [] },
  {
    name: 'without the kept counts',
    takeOut: [
      'DROP TRIGGER batch_record_count_insert ON batch_record',
      'DROP TRIGGER batch_record_count_update ON batch_record',
    ],
  },
  {
    name: 'without the audit entry',
    takeOut: [
      `CREATE OR REPLACE FUNCTION audit_append(p_status int, p_day date, p_seed text, p_head text, p_tail text, p_id uuid,
         p_at timestamptz, p_actor_kind text, p_actor_id text, p_actor_role text, p_source_address text, p_action text,
         p_record_type text, p_record_id text, p_batch_token text, p_rto text, p_outcome text, p_request_id text)
       RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'`,
    ],
  },
]
// BENCH_UPLOAD_COST_VARIANTS=1 runs as built alone (e.g. to compare two checkouts); =2 the first two.
const VARIANTS = ALL_VARIANTS.slice(
  0,
  positiveInteger('BENCH_UPLOAD_COST_VARIANTS', ALL_VARIANTS.length, ALL_VARIANTS.length),
)

// Bounded: every run is a warm-up and a measured load, plus starting a service and a database.
const budgetSeconds =
  ((adminUrl ? 1 : 0) + (pglite ? 1 : 0)) * settings.runs * VARIANTS.length * (WARMUP_SECONDS + settings.seconds + 40) +
  60
const watchdog = setTimeout(() => {
  console.error(`bench upload-cost: gave up after ${budgetSeconds} s (over budget)`)
  process.exit(2)
}, budgetSeconds * 1000)
watchdog.unref()

/** CPU milliseconds of every process named `postgres` (those that end meanwhile left out). */
const postgresCpuMs = () => cpuMsOf(processesNamed('postgres'), 'skip')!

interface Run {
  requestsPerSecond: number
  serviceCpuUs: number
  postgresCpuUs: number | undefined
}

async function once(env: Record<string, string>, takeOut: string[], onPostgres: boolean): Promise<Run> {
  const service = await startService(env)
  try {
    const upload = await startUpload(service)
    for (const statement of takeOut) await sql.raw(statement).execute(service.db)
    const [bodyBefore, bodyAfter] = upload.body.split(UID_PLACEHOLDER) as [string, string]
    const request = {
      url: `${upload.url}${upload.path}`,
      headers: upload.headers,
      bodyBefore,
      bodyAfter,
      connections: settings.connections,
    }
    await loadInChild({ ...request, seconds: WARMUP_SECONDS })
    const cpuBefore = process.cpuUsage()
    const postgresBefore = onPostgres ? postgresCpuMs() : 0
    const result = await loadInChild({ ...request, seconds: settings.seconds })
    const cpu = process.cpuUsage(cpuBefore)
    const postgresMs = onPostgres ? postgresCpuMs() - postgresBefore : 0
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`the upload answered ${result.non2xx} non-2xx and ${result.errors} errors`)
    return {
      requestsPerSecond: result.requestsPerSecond,
      serviceCpuUs: (cpu.user + cpu.system) / result.ok,
      postgresCpuUs: onPostgres ? (postgresMs * 1000) / result.ok : undefined,
    }
  } finally {
    await service.close()
  }
}

async function measure(database: 'pglite' | 'postgres'): Promise<string[][]> {
  const runs = new Map<string, Run[]>(VARIANTS.map((variant) => [variant.name, []]))
  for (let round = 0; round < settings.runs; round++) {
    // Alternating, and in the other order every second round: drift falls on every variant alike.
    const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()
    for (const variant of order) {
      const run =
        database === 'postgres'
          ? await withFreshPostgres(adminUrl!, (url) => once({ DATABASE_URL: url }, variant.takeOut, true))
          : await once({ DATA_DIR: 'memory://' }, variant.takeOut, false)
      runs.get(variant.name)!.push(run)
      console.log(
        `  ${database} ${variant.name}: run ${round + 1}/${settings.runs}: ${run.requestsPerSecond.toFixed(0)} req/s, service CPU ${run.serviceCpuUs.toFixed(0)} us/upload${run.postgresCpuUs === undefined ? '' : `, PostgreSQL CPU ${run.postgresCpuUs.toFixed(0)} us/upload`}`,
      )
    }
  }
  const asBuilt = median(runs.get('as built')!.map((run) => run.requestsPerSecond))
  return VARIANTS.map(({ name }) => {
    const list = runs.get(name)!
    const rate = median(list.map((run) => run.requestsPerSecond))
    const postgres = list.every((run) => run.postgresCpuUs !== undefined)
      ? median(list.map((run) => run.postgresCpuUs!)).toFixed(0)
      : '-'
    return [
      database,
      name,
      rate.toFixed(0),
      (rate / asBuilt).toFixed(2),
      median(list.map((run) => run.serviceCpuUs)).toFixed(0),
      postgres,
    ]
  })
}

console.log(
  `bench upload-cost: ${new Date().toISOString()}, Node ${process.version}, ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}; ${settings.runs} round(s) of ${settings.seconds} s after ${WARMUP_SECONDS} s of warm-up, ${settings.connections} connections`,
)
const rows = [['database', 'variant', 'req/s', 'of as built', 'service CPU us/upload', 'PostgreSQL CPU us/upload']]
if (pglite) rows.push(...(await measure('pglite')))
if (adminUrl) rows.push(...(await measure('postgres')))
else console.log('bench upload-cost: no DATABASE_URL, PostgreSQL is skipped')
console.log(`\nThe Student upload with one part taken out (medians of ${settings.runs} round(s)):\n`)
console.log(table(rows, 2))
