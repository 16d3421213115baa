// The audit trail's lanes (issue 30, migration 0042), measured at the point they change: concurrent
// transactions that each append an audit entry (the upload's `audit_append`) and commit, on separate
// PostgreSQL connections, with the lanes (audit_lane() = pid % 16) and with every connection forced
// into one lane (audit_lane() redefined to 0 in the bench's own database: the one chain a day as before
// migration 0042), alternating in one process run. A transaction may hold its entry for a while before
// its commit (BENCH_HOLD_MS, pg_sleep before COMMIT): what a slower commit (a cloud disk's WAL flush)
// or the rest of an upload's work costs while the lane's head row is locked. Prints entries per second
// per round side by side and the ratio; verifies every chain at the end.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/audit-lanes.ts
//   (BENCH_CONNECTIONS=16 BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_HOLD_MS=0,2)
import { randomUUID } from 'node:crypto'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { auditInStatement, verifyAudit } from '../src/modules/audit/index.ts'
import { migrateToLatest } from '../src/platform/db/migrate.ts'
import type { Db } from '../src/platform/db/database.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { positiveInteger } from './settings.ts'
import { table } from './table.ts'

const adminUrl = process.env.DATABASE_URL
if (!adminUrl) throw new Error('bench/audit-lanes.ts needs DATABASE_URL (PostgreSQL)')
const connections = positiveInteger('BENCH_CONNECTIONS', 16, 200)
const seconds = positiveInteger('BENCH_SECONDS', 4, 600)
const rounds = positiveInteger('BENCH_ROUNDS', 3, 50)
const holds = (process.env.BENCH_HOLD_MS ?? '0,2').split(',').map(Number)

const LANES = `CREATE OR REPLACE FUNCTION audit_lane() RETURNS smallint LANGUAGE sql STABLE AS $$
  SELECT (pg_backend_pid() % 16)::smallint $$`
const ONE_LANE = `CREATE OR REPLACE FUNCTION audit_lane() RETURNS smallint LANGUAGE sql STABLE AS $$
  SELECT 0::smallint $$`

/** Transactions per second for `seconds`: each client BEGIN, the entry, hold, COMMIT, in a loop. */
async function measure(clients: pg.Client[], holdMs: number, db: Db): Promise<{ perSecond: number; lanes: number }> {
  const entry = (n: number) =>
    sql`SELECT ${auditInStatement({
      actorKind: 'client',
      actorId: 'bench-client',
      actorRole: 'client',
      sourceAddress: '127.0.0.1',
      action: 'record.upload',
      recordType: 'Student',
      recordId: randomUUID(),
      batchToken: 'bench-batch',
      rto: 'B1',
      requestId: `r${n}`,
    })(sql<number>`201`)}`.compile(db)
  const start = await clients[0]!.query(`SELECT coalesce(max(pos), 0)::text AS pos FROM audit_entry`)
  const end = Date.now() + seconds * 1000
  let done = 0
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < end) {
        const { sql: text, parameters } = entry(done)
        await client.query('BEGIN')
        await client.query(text, parameters as unknown[])
        if (holdMs > 0) await client.query('SELECT pg_sleep($1)', [holdMs / 1000])
        await client.query('COMMIT')
        done++
      }
    }),
  )
  const lanes = await clients[0]!.query(
    `SELECT count(DISTINCT lane)::int AS n FROM audit_entry WHERE pos > $1::bigint`,
    [start.rows[0].pos],
  )
  return { perSecond: done / seconds, lanes: lanes.rows[0].n }
}

await withFreshPostgres(adminUrl, async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) }) as unknown as Db
  await migrateToLatest(db)
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
  )
  const pids = await Promise.all(clients.map(async (c) => (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p))
  const distinctLanes = new Set(pids.map((p: number) => p % 16)).size
  console.log(
    `audit-lanes: ${connections} connections (${distinctLanes} distinct lanes of 16), ${seconds} s a measure, ${rounds} rounds, hold ${holds.join(' and ')} ms`,
  )
  const rows = [['hold ms', 'round', 'one lane /s', 'lanes /s', 'lanes used', 'lanes / one lane']]
  const ratios = new Map<number, number[]>()
  try {
    for (const hold of holds)
      for (let round = 1; round <= rounds; round++) {
        // Alternating which goes first, so a drift in the machine's load favours neither.
        const order = round % 2 === 1 ? ['one', 'lanes'] : ['lanes', 'one']
        const result: Record<string, number> = {}
        let used = 0
        for (const kind of order) {
          await sql.raw(kind === 'one' ? ONE_LANE : LANES).execute(db)
          const measured = await measure(clients, hold, db)
          result[kind] = measured.perSecond
          if (kind === 'lanes') used = measured.lanes
          else if (measured.lanes !== 1) throw new Error(`one lane wrote ${measured.lanes} lanes`)
        }
        const ratio = result.lanes! / result.one!
        ratios.set(hold, [...(ratios.get(hold) ?? []), ratio])
        rows.push([
          String(hold),
          String(round),
          result.one!.toFixed(0),
          result.lanes!.toFixed(0),
          String(used),
          ratio.toFixed(2),
        ])
      }
    console.log(table(rows, 2))
    const today = new Date().toISOString().slice(0, 10)
    const [verified] = await verifyAudit(db, today, today)
    console.log(
      `verify ${today}: ${verified?.entries} entries in ${verified?.lanes} lanes, ${verified?.broken ? `BROKEN ${verified.broken.detail}` : 'chains intact'}`,
    )
  } finally {
    await sql.raw(LANES).execute(db)
    for (const client of clients) await client.end()
    await pool.end()
  }
})
