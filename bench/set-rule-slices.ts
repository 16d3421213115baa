// `node bench/set-rule-slices.ts` (issue 30): every set rule of validation over a batch on PGlite in
// memory, its query as one statement against in key slices (validation.engine.ts runSetRule with
// `keySliceRecords`), side by side in one process, alternating: per rule, the whole time and the
// longest statement (every statement timed at PGlite's query; on the embedded database the longest
// statement is how long the service answers nothing), and the results compared. Loads
// BENCH_SLICES_RECORDS (100,000) records (bench/batch-loader.ts), requests a validation through the API
// (workers off: this process runs the rules itself, each round under an attempt of its own), BENCH_RUNS
// (2) rounds of each way; key slices of SET_RULE_SLICE_RECORDS (5,000) batch records.
import { loadavg } from 'node:os'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import { rules } from '../src/modules/validation/rules/index.ts'
import { keySlicesOf, runSetRule } from '../src/modules/validation/engine.ts'
import type { SetRule } from '../src/modules/validation/rule.ts'
import { utcToday } from '../src/domain/reporting-period.ts'
import { loadBatch } from './batch-loader.ts'
import { demoAuth } from './demo-auth.ts'

const RECORDS = Number(process.env.BENCH_SLICES_RECORDS ?? 100_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 2)
const SLICE = Number(process.env.SET_RULE_SLICE_RECORDS ?? 5000)
const ONLY = process.env.BENCH_SLICES_RULES?.split(',')

const service = await createService(
  loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', DATA_DIR: 'memory://', DATABASE_URL: '' }),
  { workers: false },
)
const db = service.database.db
const pglite = service.database.pglite!
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
  const requested = await fetch(`${baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}/validate`, {
    method: 'POST',
    headers: auth,
  })
  if (requested.status !== 201) throw new Error(`validate: ${requested.status} ${await requested.text()}`)
  const { run_id: runId } = (
    await sql<{ run_id: string }>`SELECT run_id FROM validation_run WHERE transaction_batch_token = ${token}`.execute(
      db,
    )
  ).rows[0]!
  await sql`VACUUM ANALYZE`.execute(db).catch(() => {})
  const scope = { rto: '90001', token, today: utcToday() }
  const setRules = rules.filter(
    (rule): rule is SetRule => rule.kind === 'set' && (!ONLY || ONLY.includes(rule.technicalRuleId)),
  )
  console.log(
    `\n${count} records, key slices of ${SLICE} records, results written in slices of 1,000 rows; load average ${loadavg()[0]!.toFixed(1)}\n`,
  )
  console.log('| Round | Rule | Run as | Results | Whole ms | Longest statement ms | Same results | Load |')
  console.log('|---|---|---|---|---|---|---|---|')
  let attempt = 100
  // The results in stored order, each group told by where it first appears (grouping ids name the attempt).
  const stored = async (a: number) => {
    const { rows } = await sql<{ g: string; r: string }>`
      SELECT validation_grouping_id::text AS g,
             concat_ws(' ', technical_rule_id, resource_type, resource_uid, message, related_validation_result_count,
                       data_source, array_to_string(access_path, '.'), change_tracking_identifier) AS r
        FROM validation_result WHERE run_id = ${runId}::uuid AND attempt = ${a} ORDER BY seq`.execute(db)
    const groups = new Map<string, number>()
    return rows.map(({ g, r }) => {
      if (!groups.has(g)) groups.set(g, groups.size)
      return `${groups.get(g)} ${r}`
    })
  }
  // The key slices, found once as a run finds them (timed apart).
  const keySlices = keySlicesOf(db, scope, SLICE)
  longest = 0
  const boundariesStarted = performance.now()
  for (const type of ['Student', 'ProgramEnrolment', 'SubjectEnrolment', 'SubjectOffering'] as const)
    await keySlices(type)
  console.log(
    `Key slices' boundaries of four types: ${(performance.now() - boundariesStarted).toFixed(0)} ms, longest statement ${longest.toFixed(0)} ms\n`,
  )
  for (let round = 1; round <= RUNS; round++) {
    for (const rule of setRules) {
      const results: Record<string, string[]> = {}
      for (const slice of round % 2 === 1 ? [undefined, SLICE] : [SLICE, undefined]) {
        attempt++
        longest = 0
        const started = performance.now()
        await runSetRule(db, rule, scope, runId, attempt, true, 1000, slice === undefined ? undefined : keySlices)
        const whole = performance.now() - started
        const longestMs = longest
        const rows = await stored(attempt)
        results[slice === undefined ? 'one' : 'sliced'] = rows
        const same =
          results.one && results.sliced ? String(JSON.stringify(results.one) === JSON.stringify(results.sliced)) : ''
        console.log(
          `| ${round} | ${rule.technicalRuleId} | ${slice === undefined ? 'one statement (a part)' : 'key slices'} | ${rows.length} | ${whole.toFixed(0)} | ${longestMs.toFixed(0)} | ${same} | ${loadavg()[0]!.toFixed(1)} |`,
        )
      }
    }
  }
} finally {
  await service.close()
}
process.exit(0)
