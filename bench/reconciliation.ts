// `npm run bench` (fourth part): reconciliation latency on a large held dataset. Seeds a synthetic
// held dataset (src/cli/synthetic-data.ts: five RTOs, per student a program enrolment and three
// subject enrolments over shared programs, subjects, offerings and locations, lifecycles over 2026,
// voids; one busy student), runs VACUUM ANALYZE (the state autovacuum keeps a live database in), then
// times sequential requests of the first RTO through the API: search-by-period first page and a deep
// page, uid-match of 500 UIDs, related-resources of the busy student. Prints p50 and p99 with the
// dataset size and the ratio to the target (p99 under 50 ms at 1M held records on PostgreSQL).
// PostgreSQL (when DATABASE_URL is set): BENCH_RECONCILIATION_PG_RECORDS (default 1,000,000);
// PGlite: BENCH_RECONCILIATION_PGLITE_RECORDS (default 50,000). Rerun at 10M with the first set to 10000000
// (and BENCH_RECONCILIATION_BATCH_RECORDS=250000: see BATCH_RECORDS).
import { randomBytes, randomUUID } from 'node:crypto'
import pg from 'pg'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import { seedSynthetic } from '../src/cli/synthetic-data.ts'
import { demoAuth } from './demo-auth.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const TARGET_P99_MS = 50
const RTOS = ['90001', '90002', '91001', '91002', '91003']
const adminUrl = process.env.DATABASE_URL || undefined
const PG_RECORDS = Number(process.env.BENCH_RECONCILIATION_PG_RECORDS ?? 1_000_000)
const PGLITE_RECORDS = Number(process.env.BENCH_RECONCILIATION_PGLITE_RECORDS ?? 50_000)
// Records per seeded batch. A national-size seed goes faster in larger batches: the 10M entry of
// bench/results.md (2026-11-25) used 250,000, when each batch's indexing still recomputed every shared
// target it touched from all its links.
const BATCH_RECORDS = Number(process.env.BENCH_RECONCILIATION_BATCH_RECORDS ?? 20_000)

const watchdog = setTimeout(
  () => {
    console.error('reconciliation bench: over budget, giving up')
    process.exit(2)
  },
  3 * 60 * 60 * 1000,
)
watchdog.unref()

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

async function time(
  name: string,
  request: () => Promise<Response>,
): Promise<{ name: string; p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await (await request()).arrayBuffer() // warm-up
  const samples: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now()
    const response = await request()
    await response.arrayBuffer()
    samples.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${name}: ${response.status}`)
  }
  samples.sort((a, b) => a - b)
  return { name, p50: percentile(samples, 50), p99: percentile(samples, 99) }
}

async function measure(database: string, env: Record<string, string>, records: number): Promise<string[]> {
  const service = await createService(loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env }), {
    workers: false,
  })
  try {
    const studentsPerRto = Math.max(10, Math.round(records / RTOS.length / 5))
    const seedStarted = performance.now()
    let lastReport = 0
    const summary = await seedSynthetic(service.database.db, {
      students: studentsPerRto,
      rtos: RTOS,
      jurisdiction: 'NSW',
      batchRecords: BATCH_RECORDS,
      busyStudentEnrolments: 300,
      onProgress: (held) => {
        if (held - lastReport >= 100_000) {
          lastReport = held
          console.error(
            `  ${database}: ${held} held records (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)`,
          )
        }
      },
    })
    console.error(
      `  ${database}: seeded ${summary.records} held record versions in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
    )
    if (database === 'postgres') await sql`VACUUM ANALYZE`.execute(service.database.db)
    else await sql`ANALYZE`.execute(service.database.db)
    const counts = await sql<{ items: string; rto_items: string; links: string }>`
      SELECT (SELECT count(*) FROM reconciliation_item)::text AS items,
             (SELECT count(*) FROM reconciliation_item WHERE rto_id = '90001')::text AS rto_items,
             (SELECT count(*) FROM held_link)::text AS links`.execute(service.database.db)
    const { items, rto_items: rtoItems } = counts.rows[0]!
    const size = await sql<{
      size: string
    }>`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`.execute(service.database.db)
    console.error(
      `  ${database}: ${items} reconciliation items, ${counts.rows[0]!.links} links, database ${size.rows[0]!.size}`,
    )

    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const auth = await demoAuth(baseUrl)
    const search = `${baseUrl}/vet-provider/v1/search-by-period?resourceType=SubjectEnrolment&reportingPeriods=202601,202602,202603,202604&pageSize=100`
    const first = (await (await fetch(search, { headers: auth })).json()) as {
      numberOfResults: number
      numberOfPages: number
    }
    const deepPage = Math.max(1, Math.floor(first.numberOfPages * 0.9))
    const uids = [
      ...summary.sampleSubjectEnrolmentUIDs.slice(0, 450),
      ...Array.from({ length: 50 }, () => randomUUID()),
    ]
    const uidMatchBody = JSON.stringify({
      resourceType: 'SubjectEnrolment',
      reportingPeriod: '202602',
      resourceUIDs: uids,
    })
    const results = [
      await time(`search-by-period, 4 periods, first page of 100 (of ${first.numberOfResults} results)`, () =>
        fetch(search, { headers: auth }),
      ),
      await time(`search-by-period, page ${deepPage} of ${first.numberOfPages}`, () =>
        fetch(`${search}&pageNumber=${deepPage}`, { headers: auth }),
      ),
      await time('uid-match, 500 UIDs (450 held, 50 unknown)', () =>
        fetch(`${baseUrl}/vet-provider/v1/uid-match`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: uidMatchBody,
        }),
      ),
      await time('related-resources, busy student (300 subject enrolments), first page of 100', () =>
        fetch(`${baseUrl}/vet-provider/v1/student/${summary.busyStudentUID}/related-resources?pageSize=100`, {
          headers: auth,
        }),
      ),
    ]
    return results.map(
      (r) =>
        `| ${database} | ${Number(items)} (RTO: ${Number(rtoItems)}) | ${r.name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(TARGET_P99_MS / r.p99).toFixed(2)} |`,
    )
  } finally {
    await service.close()
  }
}

const rows = [...(await measure('pglite', { DATA_DIR: 'memory://', DATABASE_URL: '' }, PGLITE_RECORDS))]
if (adminUrl) {
  const name = `vetrs_bench_${randomBytes(6).toString('hex')}`
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: adminUrl })
    await c.connect()
    try {
      await c.query(statement)
    } finally {
      await c.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  try {
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    rows.push(...(await measure('postgres', { DATABASE_URL: url.toString() }, PG_RECORDS)))
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}

console.log(
  `\nReconciliation latency, ${REQUESTS} sequential requests each after 20 warm-up (target: p99 under ${TARGET_P99_MS} ms at 1M held records on PostgreSQL; ratio = ${TARGET_P99_MS} / p99)\n`,
)
console.log('| Database | Reconciliation items (first RTO) | Request | p50 ms | p99 ms | Ratio |')
console.log('|---|---|---|---|---|---|')
for (const row of rows) console.log(row)
