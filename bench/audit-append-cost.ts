// What migration 0042 (the audit trail's lanes) costs one audit entry where nothing contends: on the
// embedded database (one connection, one lane), the upload's audit_append before (a database migrated
// to 0041: one chain a day) and after (the latest: the lane, its seed, the position from a sequence and
// one more index), alternating rounds in one process, each in its own PGlite in memory. Prints the
// microseconds per entry of each round side by side and the ratio.
//
//   node bench/audit-append-cost.ts     (BENCH_ENTRIES=1000 BENCH_ROUNDS=4)
import { randomUUID } from 'node:crypto'
import { Kysely, PGliteDialect, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { PGlite } from '@electric-sql/pglite'
import { auditInStatement } from '../src/modules/audit/index.ts'
import { migrations } from '../src/platform/db/migrations/index.ts'
import { positiveInteger } from './settings.ts'
import { table } from './table.ts'

const entries = positiveInteger('BENCH_ENTRIES', 1000, 1_000_000)
const rounds = positiveInteger('BENCH_ROUNDS', 4, 50)

async function database(upTo: string | undefined): Promise<Kysely<any>> {
  const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite: await PGlite.create() }) })
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const result = upTo ? await migrator.migrateTo(upTo) : await migrator.migrateToLatest()
  if (result.error) throw result.error
  return db
}

/** Microseconds per entry for `entries` entries appended one statement each. */
async function append(db: Kysely<any>): Promise<number> {
  const started = process.hrtime.bigint()
  for (let n = 0; n < entries; n++) {
    const entry = auditInStatement({
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
    })
    await sql`SELECT ${entry(sql<number>`201`)}`.execute(db)
  }
  return Number(process.hrtime.bigint() - started) / 1000 / entries
}

const before = await database('0041_run_result_anchors')
const after = await database(undefined)
const rows = [['round', 'one chain (0041) us', 'lanes (0042) us', 'lanes / one chain']]
try {
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['before', 'after'] as const) : (['after', 'before'] as const)
    const us: Record<string, number> = {}
    for (const kind of order) us[kind] = await append(kind === 'before' ? before : after)
    rows.push([String(round), us.before!.toFixed(0), us.after!.toFixed(0), (us.after! / us.before!).toFixed(2)])
  }
  console.log(`audit-append-cost: PGlite in memory, ${entries} entries a round, ${rounds} rounds`)
  console.log(table(rows, 1))
} finally {
  await before.destroy()
  await after.destroy()
}
