// The embedded database's memory by stage, without the service (issue 30, "Memory"): opens PGlite on
// PGLITE_MEMORY_DIR (a new temporary directory when unset: initdb), migrates and seeds it as the service
// does, then PGLITE_MEMORY_ROUNDS rounds of work (a 200,000-row table of JSON built, indexed, grouped,
// self-joined and updated). After each stage one JSON line: the seconds, the RSS and its peak over the
// stage (VmHWM, reset after each line), V8's heap, external memory, PGlite's WebAssembly memory and the
// process's CPU ms so far (every thread: V8 compiles WebAssembly on background threads). Run it with
// Node.js flags to compare them (`node --liftoff-only bench/pglite-memory.ts`), with
// EMBEDDED_SHARED_BUFFERS_MB for the page cache, and with `--trace-wasm-compilation-times` to see what
// each function's compilation took (bytes: the compiler's zone memory).
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { openDatabase } from '../src/platform/db/database.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import { seedReferenceData } from '../src/modules/reference-data/index.ts'

const started = performance.now()
const statusMb = (field: string) =>
  Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024)
const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.round(bytes / 1048576))
let wasmBytes = (): number | undefined => undefined

function stage(name: string): void {
  const usage = process.memoryUsage()
  const cpu = process.cpuUsage()
  console.log(
    JSON.stringify({
      stage: name,
      s: Number(((performance.now() - started) / 1000).toFixed(1)),
      rssMb: statusMb('VmRSS'),
      peakMb: statusMb('VmHWM'),
      heapUsedMb: mb(usage.heapUsed),
      heapTotalMb: mb(usage.heapTotal),
      externalMb: mb(usage.external),
      wasmMb: mb(wasmBytes()),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    }),
  )
  writeFileSync('/proc/self/clear_refs', '5') // Linux: the next stage's peak counted from here
}

stage('modules loaded')
const dir = process.env.PGLITE_MEMORY_DIR || (await mkdtemp(join(tmpdir(), 'vetrs-pglite-memory-')))
const config = loadConfig({
  DATA_DIR: dir,
  DATABASE_URL: '',
  LOG_LEVEL: 'silent',
  ...(process.env.EMBEDDED_SHARED_BUFFERS_MB
    ? { EMBEDDED_SHARED_BUFFERS_MB: process.env.EMBEDDED_SHARED_BUFFERS_MB }
    : {}),
})
const handle = await openDatabase(config.database)
wasmBytes = () => (handle.pglite as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod?.HEAPU8?.byteLength
stage('opened')
await migrateToLatest(handle.db)
await seedReferenceData(handle.db)
stage('migrated and seeded')
const rounds = Number(process.env.PGLITE_MEMORY_ROUNDS ?? 1)
for (let round = 1; round <= rounds; round++) {
  await sql`DROP TABLE IF EXISTS memory_work`.execute(handle.db)
  await sql`CREATE TABLE memory_work AS SELECT g AS id, md5(g::text) AS k,
    jsonb_build_object('a', g, 'b', md5(g::text), 'c', repeat('x', 200)) AS body FROM generate_series(1, 200000) AS g`.execute(
    handle.db,
  )
  await sql`CREATE INDEX ON memory_work (k)`.execute(handle.db)
  await sql`SELECT k, count(*) FROM memory_work GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5`.execute(handle.db)
  await sql`SELECT a.id FROM memory_work a JOIN memory_work b ON a.k = b.k WHERE a.body->>'b' LIKE 'a%'
    ORDER BY a.body->>'c', a.id LIMIT 5`.execute(handle.db)
  await sql`UPDATE memory_work SET body = body || '{"d": 1}' WHERE id % 3 = 0`.execute(handle.db)
  stage(`work round ${round}`)
}
;(globalThis as { gc?: () => void }).gc?.()
stage('after a collection (with --expose-gc)')
await sql`DROP TABLE IF EXISTS memory_work`.execute(handle.db)
await handle.close()
if (!process.env.PGLITE_MEMORY_DIR) await rm(dir, { recursive: true, force: true })
