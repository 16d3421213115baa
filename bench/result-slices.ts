// `node bench/result-slices.ts` (issue 30): one assessment rule's results written as one statement
// against found into a temporary table and written in slices (platform/db/sliced-insert.ts), side by
// side in one process, alternating, on PGlite in memory: the whole write and its longest statement (every
// statement timed at PGlite's query; on the embedded database the longest statement is how long the
// service answers nothing). Loads BENCH_SLICES_RECORDS (20,000) records, validates, submits and assesses
// them through the API, copies the period (assessment.stage.ts) and then writes the results of
// BENCH_SLICES_RULE (DQTS10050, the rule with results in bench/batch-loader.ts's data) BENCH_RUNS (3)
// rounds of each way, in slices of RESULT_SLICE_ROWS (1,000).
import { loadavg } from 'node:os'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import * as assessment from '../src/modules/assessment/assessment.repo.ts'
import { assessmentRules } from '../src/modules/assessment/index.ts'
import { stagePeriod } from '../src/modules/assessment/assessment.stage.ts'
import { firstDayOf, lastDayOf, utcToday } from '../src/domain/reporting-period.ts'
import { loadBatch } from './batch-loader.ts'
import { demoAuth } from './demo-auth.ts'

const RECORDS = Number(process.env.BENCH_SLICES_RECORDS ?? 20_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const RULE = process.env.BENCH_SLICES_RULE ?? 'DQTS10050'
const SLICE = Number(process.env.RESULT_SLICE_ROWS ?? 1000)
const PERIOD = 202604 // the examples' activity (October 2026)

const service = await createService(
  loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', DATA_DIR: 'memory://', DATABASE_URL: '' }),
  { workers: true },
)
const db = service.database.db
const pglite = service.database.pglite!
// The longest statement since `longest` was last set to 0: statements outside a transaction go to
// pglite.query, those inside one to the query of the transaction object PGlite hands its callback.
let longest = 0
type Query = (...args: unknown[]) => Promise<unknown>
const timed =
  (original: Query): Query =>
  async (...args) => {
    const started = performance.now()
    try {
      return await original(...args)
    } finally {
      longest = Math.max(longest, performance.now() - started)
    }
  }
const target = pglite as unknown as Record<string, Query>
target.query = timed(pglite.query.bind(pglite) as Query)
const transaction = pglite.transaction.bind(pglite)
target.transaction = ((callback: (tx: unknown) => Promise<unknown>) =>
  transaction((tx) => {
    const t = tx as unknown as Record<string, Query>
    return callback({ ...tx, query: timed(t.query!.bind(tx)), exec: timed(t.exec!.bind(tx)) })
  })) as Query

try {
  const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await demoAuth(baseUrl)
  const { token, count } = await loadBatch(db, RECORDS)
  const batch = `${baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
  const period = `${baseUrl}/vet-provider/v1/reporting-period/NSW/${PERIOD}/validate`
  const until = async (done: () => Promise<boolean>) => {
    // Once a second; a connection the busy service closed is asked again.
    while (!(await done().catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  const json = async (url: string) => (await (await fetch(url, { headers: auth })).json()) as Record<string, unknown>
  await fetch(`${batch}/validate`, { method: 'POST', headers: auth })
  await until(async () => (await json(`${batch}/validate`)).validationStatus === 'Validated')
  const submitted = await fetch(`${batch}/submit`, { method: 'POST', headers: auth })
  if (submitted.status !== 200) throw new Error(`submit: ${submitted.status} ${await submitted.text()}`)
  await until(async () => Boolean((await json(batch)).reconciledAt))
  await fetch(period, { method: 'POST', headers: auth })
  await until(async () => (await json(period)).assessmentStatus === 'Validated')

  // The completed run's own working copy again, under an attempt of its own, for the rule to read.
  const run = (await sql<{ run_id: string }>`SELECT run_id FROM assessment_run WHERE status = 'Completed'`.execute(db))
    .rows[0]!
  const today = utcToday()
  const periodEnd = lastDayOf(PERIOD)
  const scope = {
    rto: '90001',
    jurisdiction: 'NSW',
    period: PERIOD,
    periodStart: firstDayOf(PERIOD),
    periodEnd,
    asAt: today < periodEnd ? today : periodEnd,
    stage: { runId: run.run_id, attempt: 800 },
  }
  await stagePeriod(db, scope, 5000)
  const rule = assessmentRules.find((r) => r.technicalRuleId === RULE)!
  console.log(`\n${count} records, rule ${RULE}, slices of ${SLICE} rows; load average ${loadavg()[0]!.toFixed(1)}\n`)
  console.log('| Round | Written as | Rows | Whole ms | Longest statement ms | Load |')
  console.log('|---|---|---|---|---|---|')
  let attempt = 900
  for (let round = 1; round <= RUNS; round++) {
    for (const slice of round % 2 === 1 ? [undefined, SLICE] : [SLICE, undefined]) {
      attempt++
      longest = 0
      const started = performance.now()
      await assessment.insertRuleResults(db, rule, scope, run.run_id, attempt, slice)
      const whole = performance.now() - started
      const longestMs = longest
      const rows = (
        await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM assessment_result WHERE run_id = ${run.run_id}::uuid AND attempt = ${attempt}`.execute(
          db,
        )
      ).rows[0]!.n
      console.log(
        `| ${round} | ${slice === undefined ? 'one statement' : 'slices'} | ${rows} | ${whole.toFixed(0)} | ${longestMs.toFixed(0)} | ${loadavg()[0]!.toFixed(1)} |`,
      )
    }
  }
} finally {
  await service.close()
}
process.exit(0)
