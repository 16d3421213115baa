// Issue 30, "Memory": the embedded database's page cache (shared_buffers) sits inside PGlite's
// WebAssembly memory, which never shrinks, so its size is a setting (EMBEDDED_SHARED_BUFFERS_MB). The
// embedded database takes it; PostgreSQL keeps its own server's setting, which the service never changes.
// `npm run start:small-memory` starts the service with V8's young generation at 16 MB rather than npm start's
// 32 (with EMBEDDED_SHARED_BUFFERS_MB=64, under 400 MB at 12,000 records: bench/results.md, tenth session).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { onPostgres, startTestService, type TestService } from './support/index.ts'

const sharedBuffers = async (t: TestService) =>
  (await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(t.service.database.db)).rows[0]!.shared_buffers

describe('the embedded database page cache (issue 30, memory)', () => {
  let plain: TestService
  let small: TestService
  before(async () => {
    plain = await startTestService()
    small = await startTestService({ env: { EMBEDDED_SHARED_BUFFERS_MB: '16' } })
  })
  after(async () => {
    await small?.close()
    await plain?.close()
  })

  it('is read as a whole number of MB from 1 to 1024; a value outside stops the start', () => {
    const embedded = { DATA_DIR: 'memory://', DATABASE_URL: '' }
    const database = (env: Record<string, string>) => loadConfig({ ...embedded, ...env }).database
    assert.deepEqual(database({}), { kind: 'pglite', dataDir: 'memory://' })
    assert.deepEqual(database({ EMBEDDED_SHARED_BUFFERS_MB: '32' }), {
      kind: 'pglite',
      dataDir: 'memory://',
      sharedBuffersMb: 32,
    })
    for (const bad of ['0', '1025', '32MB', 'lots'])
      assert.throws(() => database({ EMBEDDED_SHARED_BUFFERS_MB: bad }), /EMBEDDED_SHARED_BUFFERS_MB/, bad)
  })

  it("is the setting on the embedded database and the server's own on PostgreSQL; the service answers with it", async () => {
    const mine = await sharedBuffers(small)
    const others = await sharedBuffers(plain)
    if (onPostgres) assert.equal(mine, others, 'PostgreSQL: the server decides, the setting is not sent')
    else {
      assert.equal(mine, '16MB')
      assert.equal(others, '128MB', "unset: PGlite's own default")
    }
    const ready = await fetch(`${small.baseUrl}/health/ready`)
    assert.equal(ready.status, 200)
    // A table twice the size of the cache is written and read through it whole: pages are evicted, not refused.
    const db = small.service.database.db
    await sql`CREATE TABLE memory_probe AS SELECT g, repeat(md5(g::text), 16) AS filler FROM generate_series(1, 60000) AS g`.execute(
      db,
    )
    const { rows } = await sql<{ n: string; mb: string }>`
      SELECT count(DISTINCT filler) AS n, pg_relation_size('memory_probe') / 1048576 AS mb FROM memory_probe`.execute(
      db,
    )
    assert.equal(Number(rows[0]!.n), 60000)
    assert.ok(Number(rows[0]!.mb) > 32, `the table is ${rows[0]!.mb} MB`)
    await sql`DROP TABLE memory_probe`.execute(db)
  })
})

describe('npm run start:small-memory (issue 30, memory)', () => {
  // The service started this way is exercised by bench/embedded-responsiveness.ts (BENCH_RESPONSIVE_NODE_FLAGS);
  // the launcher adds npm start's other settings (test/service-memory.test.ts keeps a given flag as given).
  it('starts the service through the same launcher with a young generation of 16 MB, a flag this Node.js takes', () => {
    const scripts = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts as Record<
      string,
      string
    >
    const words = scripts['start:small-memory']!.split(' ')
    assert.deepEqual(
      words.filter((word) => word.startsWith('--')),
      ['--max-semi-space-size=8'],
    )
    assert.deepEqual(
      words.filter((word) => !word.startsWith('--')),
      scripts.start!.split(' ').filter((word) => !word.startsWith('--')),
      'the same launcher and entry as npm start',
    )
    const flags = words.filter((word) => word.startsWith('--'))
    const script = 'process.stdout.write(JSON.stringify(process.execArgv))'
    const probe = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' })
    assert.equal(probe.status, 0, probe.stderr)
    assert.deepEqual(JSON.parse(probe.stdout), [...flags, '-e', script])
  })
})
