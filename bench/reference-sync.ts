// `npm run bench` (second part): a full load of a reference dataset through the API, the way the
// README's consumer does it (pages of 500 in sequence, while the latest page says more follow), in
// records per second. On the
// largest seeded dataset (language, ~500 records) and on the same dataset grown to 50,000 records by
// a synthetic release. PGlite always; PostgreSQL too when DATABASE_URL is set (a throw-away database).
// Each is measured twice: with the service's synchronisation page cache (as it runs, every load after
// the first answered from memory) and without it (REFERENCE_SYNC_CACHE_RECORDS=0: every page read
// from the database, as the first load after a release is).
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import { loadRelease } from '../src/modules/reference-data/index.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const TARGET = 50_000
const adminUrl = process.env.DATABASE_URL || undefined

const watchdog = setTimeout(
  () => {
    console.error('reference-sync bench: over budget, giving up')
    process.exit(2)
  },
  (RUNS * SECONDS * 8 + 480) * 1000,
)
watchdog.unref()

async function fullLoad(baseUrl: string, token: string, classification: string): Promise<number> {
  let records = 0
  for (let page = 1; ; page++) {
    const response = await fetch(
      `${baseUrl}/vet-provider/v1/classification?classification=${classification}&changedSince=1901-01-01T00:00:00Z&PageNumber=${page}&PageSize=500`,
      { headers: { authorization: `Bearer ${token}` } },
    )
    if (response.status !== 200) throw new Error(`page ${page}: ${response.status} ${await response.text()}`)
    const body = (await response.json()) as { results: unknown[]; numberOfPages: number }
    records += body.results.length
    // The README's consumer rule: go on while this (latest) answer says there are more pages.
    if (body.results.length === 0 || page >= body.numberOfPages) return records
  }
}

async function recordsPerSecond(baseUrl: string, token: string): Promise<{ perSecond: number; perLoad: number }> {
  const start = performance.now()
  let records = 0
  let perLoad = 0
  while (performance.now() - start < SECONDS * 1000) {
    perLoad = await fullLoad(baseUrl, token, 'language')
    records += perLoad
  }
  return { perSecond: records / ((performance.now() - start) / 1000), perLoad }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function measure(database: string, cache: boolean, env: Record<string, string>) {
  const service = await createService(
    loadConfig({
      LOG_LEVEL: 'silent',
      PORT: '0',
      RATE_LIMIT_MAX: '0',
      ...(cache ? {} : { REFERENCE_SYNC_CACHE_RECORDS: '0' }),
      ...env,
    }),
    { workers: false },
  )
  try {
    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const tokenResponse = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'demo-rto-1',
        client_secret: 'demo-secret-1',
      }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const results: { dataset: string; records: number; perSecond: number }[] = []
    for (const grown of [false, true]) {
      if (grown) {
        const current = await service.database.db
          .selectFrom('reference_record_version')
          .select(['code', 'description'])
          .where('dataset', '=', 'language')
          .where('is_current', '=', true)
          .execute()
        const synthetic = Array.from({ length: 50_000 - current.length }, (_, i) => ({
          code: `Z${String(i).padStart(6, '0')}`,
          description: `Synthetic language ${i}`,
          avetmissCode: null,
          businessEffectiveFrom: null,
          businessEffectiveTo: null,
        }))
        await loadRelease(service.database.db, 'language', [
          ...current.map((r) => ({ ...r, avetmissCode: null, businessEffectiveFrom: null, businessEffectiveTo: null })),
          ...synthetic,
        ])
      }
      await recordsPerSecond(baseUrl, token) // warm-up
      const runs = []
      let perLoad = 0
      for (let i = 0; i < RUNS; i++) {
        const run = await recordsPerSecond(baseUrl, token)
        runs.push(run.perSecond)
        perLoad = run.perLoad
      }
      results.push({
        dataset: grown ? 'language grown to 50,000' : 'language (seeded)',
        records: perLoad,
        perSecond: median(runs),
      })
    }
    return results.map((r) => ({ database, cache: cache ? 'on' : 'off', ...r }))
  } finally {
    await service.close()
  }
}

const rows = []
for (const cache of [true, false]) rows.push(...(await measure('pglite', cache, { DATA_DIR: 'memory://' })))
if (adminUrl) {
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: adminUrl })
    await c.connect()
    try {
      await c.query(statement)
    } finally {
      await c.end()
    }
  }
  for (const cache of [true, false]) {
    const name = `vetrs_bench_${randomBytes(6).toString('hex')}`
    await admin(`CREATE DATABASE ${name}`)
    try {
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      rows.push(...(await measure('postgres', cache, { DATABASE_URL: url.toString() })))
    } finally {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  }
}
console.log(
  `\nReference data full load through the API (pages of 500, one consumer), medians of ${RUNS} runs of ${SECONDS} s; target ${TARGET.toLocaleString('en')} records/s on PostgreSQL\n`,
)
console.log('database   page cache   dataset                     records/load   records/s   target')
for (const row of rows) {
  const verdict = row.database === 'postgres' ? (row.perSecond >= TARGET ? 'PASS' : 'FAIL') : ''
  console.log(
    `${row.database.padEnd(10)} ${row.cache.padEnd(12)} ${row.dataset.padEnd(27)} ${String(row.records).padStart(12)} ${Math.round(row.perSecond).toString().padStart(11)}   ${verdict}`,
  )
}
console.log(JSON.stringify({ referenceSync: rows, target: TARGET }))
