// `node bench/assessment-copy.ts` (issue 30): a period assessment with its working copy
// (assessment.stage.ts: the period copied once, in slices, and the rules reading the copy) against the
// rules reading the held data directly, side by side on one database, alternating. The copy was made for
// the embedded database, where a statement holds the service's thread; on PostgreSQL (a pool, other
// requests run meanwhile) only the job's time matters. Loads BENCH_ASSESS_RECORDS (100,000) records
// into a batch (bench/batch-loader.ts), validates and submits it, then runs BENCH_RUNS (3) rounds of one
// assessment of each kind, in turns (which goes first alternates), each timed from its claim to its
// completion by the engine itself (workers off: nothing else runs). PostgreSQL when DATABASE_URL is set
// (a database of its own, dropped after), else PGlite in memory; BENCH_ASSESS_DATABASE=pglite forces
// the embedded one. Prints each job's seconds, the medians and the results each found (which must agree).
import { loadavg } from 'node:os'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import { runValidation } from '../src/modules/validation/engine.ts'
import { runAssessment } from '../src/modules/assessment/assessment.engine.ts'
import { assessmentRules } from '../src/modules/assessment/index.ts'
import { loadBatch } from './batch-loader.ts'
import { demoAuth } from './demo-auth.ts'
import { withFreshPostgres } from './fresh-postgres.ts'

const RECORDS = Number(process.env.BENCH_ASSESS_RECORDS ?? 100_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const PERIOD = 202604 // the examples' activity (October 2026)
const RTO = '90001'
const adminUrl = process.env.BENCH_ASSESS_DATABASE === 'pglite' ? undefined : process.env.DATABASE_URL || undefined

type Kind = 'copy' | 'direct'

async function measure(env: Record<string, string>): Promise<void> {
  const service = await createService(
    loadConfig({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env }),
    { workers: false },
  )
  try {
    const db = service.database.db
    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const auth = await demoAuth(baseUrl)
    const { token, count } = await loadBatch(db, RECORDS)
    const v1 = `${baseUrl}/vet-provider/v1`
    const queued = async (table: 'validation_run' | 'assessment_run') =>
      (
        await sql<{
          run_id: string
        }>`SELECT run_id FROM ${sql.table(table)} WHERE rto_id = ${RTO} AND status = 'Queued'`.execute(db)
      ).rows[0]!.run_id
    const validate = await fetch(`${v1}/NSW/transaction-batch/${token}/validate`, { method: 'POST', headers: auth })
    if (validate.status !== 201) throw new Error(`validate: ${validate.status} ${await validate.text()}`)
    const deps = { db, referenceLookup: service.referenceLookup, logger: service.logger }
    if ((await runValidation(deps, RTO, await queued('validation_run'))) !== 'validated') throw new Error('validation')
    const submitted = await fetch(`${v1}/NSW/transaction-batch/${token}/submit`, { method: 'POST', headers: auth })
    if (submitted.status !== 200) throw new Error(`submit: ${submitted.status} ${await submitted.text()}`)
    console.error(`  ${service.database.kind}: ${count} records validated and submitted`)

    const seconds: Record<Kind, number[]> = { copy: [], direct: [] }
    const results: Record<Kind, number[]> = { copy: [], direct: [] }
    for (let round = 0; round < RUNS; round++) {
      const order: Kind[] = round % 2 === 0 ? ['copy', 'direct'] : ['direct', 'copy']
      for (const kind of order) {
        const requested = await fetch(`${v1}/reporting-period/NSW/${PERIOD}/validate`, {
          method: 'POST',
          headers: auth,
        })
        if (requested.status !== 201) throw new Error(`assess: ${requested.status} ${await requested.text()}`)
        const runId = await queued('assessment_run')
        const started = performance.now()
        const outcome = await runAssessment(
          { db, logger: service.logger, rules: assessmentRules, workingCopy: kind === 'copy' },
          RTO,
          runId,
        )
        const elapsed = (performance.now() - started) / 1000
        if (outcome !== 'completed') throw new Error(`assessment ${kind}: ${outcome}`)
        const found = (
          await sql<{
            n: number
          }>`SELECT result_count AS n FROM assessment_run WHERE rto_id = ${RTO} AND run_id = ${runId}::uuid`.execute(db)
        ).rows[0]!.n
        seconds[kind].push(elapsed)
        results[kind].push(found)
        console.error(
          `  round ${round + 1} ${kind}: ${elapsed.toFixed(2)} s, ${found} results, load ${loadavg()[0]!.toFixed(2)}`,
        )
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.log(
      `\nAssessment of ${count} records' period on ${service.database.kind}, ${RUNS} rounds alternating (load average at the end ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')})\n`,
    )
    console.log('| Rules read | Runs, s | Median s | Results |')
    console.log('|---|---|---|---|')
    for (const kind of ['copy', 'direct'] as const)
      console.log(
        `| ${kind === 'copy' ? 'the working copy' : 'the held data'} | ${seconds[kind].map((s) => s.toFixed(2)).join(', ')} | ${median(seconds[kind]).toFixed(2)} | ${[...new Set(results[kind])].join(', ')} |`,
      )
  } finally {
    await service.close()
  }
}

if (adminUrl) await withFreshPostgres(adminUrl, (url) => measure({ DATABASE_URL: url }))
else await measure({ DATA_DIR: 'memory://', DATABASE_URL: '' })
process.exit(0)
