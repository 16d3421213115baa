// The reconciliation indexing of a first submission on PostgreSQL with its links staged beside the
// submit (issue 30, the lag after a 100,000-record submission) against the same indexing reading the
// batch's bodies, alternating in one process on one database so that a loaded machine weighs on both
// alike. BENCH_RECORDS (100,000) records are loaded and promoted in a fresh database (dropped after);
// then BENCH_ROUNDS (3) rounds of: the indexing without a stage, in a transaction rolled back; and the
// stage written and committed (what submit starts beside its promotion: timed, outside the lag), the
// indexing that takes it, rolled back, the stage deleted; the two in turn, which goes first alternating
// by round; VACUUM between. Prints each round's ms and the load average.
//   BENCH_ROUNDS=3 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/staged-links.ts
import { readFileSync } from 'node:fs'
import { sql } from 'kysely'
import {
  clearStagedLinks,
  indexSubmission,
  stageLinks,
} from '../src/modules/reconciliation/reconciliation-index.repo.ts'
import { withPromotedBatch } from './promoted-batch.ts'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const adminUrl = process.env.DATABASE_URL
if (!adminUrl) throw new Error('bench/staged-links.ts runs on PostgreSQL: give DATABASE_URL')

class Rollback extends Error {}
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]

await withPromotedBatch(adminUrl, RECORDS, async (db, p) => {
  const token = p.token
  const submission = { rto: p.rto, token, submittedAt: p.submittedAt }
  /** The indexing in a transaction rolled back: its ms. */
  const indexing = async () => {
    let ms = 0
    try {
      await db.transaction().execute(async (tx) => {
        const started = performance.now()
        await indexSubmission(tx, submission)
        ms = performance.now() - started
        throw new Rollback()
      })
    } catch (error) {
      if (!(error instanceof Rollback)) throw error
    }
    await sql`VACUUM held_link, reconciliation_item, reconciliation_day_count`.execute(db)
    return ms
  }
  console.log(`${RECORDS} records, PostgreSQL (a fresh database), ${ROUNDS} rounds (ms; load average at each start)`)
  const fromBodies = async () => ({ load: load(), ms: await indexing() })
  const fromStage = async () => {
    const stageLoad = load()
    const started = performance.now()
    await db.transaction().execute((tx) => stageLinks(tx, submission))
    const stage = performance.now() - started
    const indexed = { load: load(), ms: await indexing() }
    await clearStagedLinks(db, submission)
    await sql`VACUUM reconciliation_staged_link`.execute(db)
    return { stage: { load: stageLoad, ms: stage }, indexed }
  }
  for (let round = 1; round <= ROUNDS; round++) {
    // Which goes first alternates, round by round.
    let bodies: { load: string | undefined; ms: number }
    let staged: Awaited<ReturnType<typeof fromStage>>
    if (round % 2) {
      bodies = await fromBodies()
      staged = await fromStage()
    } else {
      staged = await fromStage()
      bodies = await fromBodies()
    }
    console.log(
      `round ${round}: indexing from the bodies ${bodies.ms.toFixed(0)} (${bodies.load}); stage ${staged.stage.ms.toFixed(0)} (${staged.stage.load}); indexing from the stage ${staged.indexed.ms.toFixed(0)} (${staged.indexed.load}); ratio ${(staged.indexed.ms / bodies.ms).toFixed(2)}`,
    )
  }
})
