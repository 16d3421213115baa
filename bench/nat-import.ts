// `node bench/nat-import.ts` (the sixth part of `npm run bench`, issue 19): NAT import of a
// NAT_BENCH_ACTIVITIES (default 100,000) activity file set end to end, against a real service the
// bench starts (as createService builds it, queue workers on), on embedded PGlite (always) and on
// PostgreSQL in a fresh database (when DATABASE_URL is set; dropped afterwards). The set is generated
// once (generateNatFileSet, a fixed seed, and a fixed asOf in the past so the service's date rules
// pass) and written as a zip. Two ways in, each run in a client process (bench/nat-import-client.ts):
//  - cli (the default): what `vetrs nat import` does: read the zip, map (codes through the service's
//    reference data), bulk upload into a new batch, validate until Validated;
//  - service (NAT_BENCH_MODES=cli,service): the zip POSTed to .../nat-import (read, map, check and
//    upload in the service), then validate until Validated.
// At 100,000 activities a run takes about 30 s on PostgreSQL and 50 s on PGlite on a 2-core machine:
// three runs of one mode on both databases are about 4 minutes, of both modes about 8.
// Each run ends with a submit (when nothing blocks). Prints seconds per stage and records per second
// end to end (medians of BENCH_RUNS runs, the modes alternating), the longest the service's event loop
// was held up during a run, and the peak RSS of the client process and of the service's (VmHWM, reset
// before each run: bench/peak-rss.ts; the service runs in this process, PostgreSQL's own memory is not
// in it). NAT_BENCH_PGLITE=0 measures PostgreSQL only. Before measuring
// it waits (up to NAT_BENCH_QUIET_SECONDS) for the machine to be quiet (1-minute load average under
// 1.5), and says so when it was not.
import { type ChildProcess, fork } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { getHeapStatistics } from 'node:v8'
import { sql } from 'kysely'
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { NAT_IMPORT_ENV, NAT_IMPORT_NODE_FLAGS } from '../packages/cli/bin/nat-memory.js'
import { createService } from '../src/app.ts'
import { loadConfig } from '../src/config/config.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import type { NatClientCommand, NatClientResult, Phase, PhaseMemory } from './nat-import-client.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { table } from './table.ts'
import { median, positiveInteger } from './settings.ts'
import { peakRssMb, resetPeakRss } from './peak-rss.ts'

type Mode = NatClientCommand['mode']
const MODES: readonly Mode[] = ['cli', 'service']

const settings = {
  activities: positiveInteger('NAT_BENCH_ACTIVITIES', 100_000, 1_000_000),
  runs: positiveInteger('BENCH_RUNS', 3, 50),
  modes: (process.env.NAT_BENCH_MODES || 'cli')
    .split(',')
    .map((mode) => mode.trim())
    .filter((mode): mode is Mode => {
      if (!(MODES as readonly string[]).includes(mode))
        throw new Error(`NAT_BENCH_MODES: ${mode} is not one of ${MODES.join(', ')}`)
      return true
    }),
  quietSeconds: positiveInteger('NAT_BENCH_QUIET_SECONDS', 180, 3600),
  pglite: process.env.NAT_BENCH_PGLITE !== '0',
  // The client runs as `vetrs nat import` runs (the launcher's flags and environment) unless these say
  // otherwise (empty: none, Node.js's defaults).
  clientNodeOptions:
    process.env.NAT_BENCH_CLIENT_NODE_OPTIONS === undefined
      ? NAT_IMPORT_NODE_FLAGS
      : process.env.NAT_BENCH_CLIENT_NODE_OPTIONS.split(/\s+/).filter(Boolean),
  clientEnv:
    process.env.NAT_BENCH_CLIENT_ENV === undefined
      ? (NAT_IMPORT_ENV as Record<string, string>)
      : Object.fromEntries(
          process.env.NAT_BENCH_CLIENT_ENV.split(/\s+/)
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        ),
}
const adminUrl = process.env.DATABASE_URL || undefined
const QUIET_LOAD = 1.5
/** The generated set: its seed, RTO (the demo client's) and a day in the past of every run. */
const SET = { seed: 'bench-nat-import', rtoCode: '90001', year: 2026, asOf: '2026-06-30' } as const
const CLIENT = { clientId: 'demo-rto-1', clientSecret: 'demo-secret-1' } as const

// Bounded: at a pessimistic 1,000 records/s (1.4 records an activity) per run, plus start-up and the wait.
// NAT_BENCH_BUDGET_SECONDS replaces it (a loaded machine takes several times as long).
const budgetSeconds =
  Number(process.env.NAT_BENCH_BUDGET_SECONDS) ||
  settings.quietSeconds +
    60 +
    (adminUrl ? 2 : 1) * (settings.runs * settings.modes.length * ((settings.activities * 1.4) / 1_000 + 20) + 60)
const watchdog = setTimeout(() => {
  console.error(`bench nat-import: gave up after ${Math.round(budgetSeconds)} s (over budget)`)
  process.exit(2)
}, budgetSeconds * 1000)
watchdog.unref()

const CLIENT_SCRIPT = fileURLToPath(new URL('./nat-import-client.ts', import.meta.url))

class Client {
  readonly #child: ChildProcess
  constructor() {
    // The CLI's modules import @vetrs/avetmiss and @vetrs/client by name: their sources, as its bin does.
    this.#child = fork(CLIENT_SCRIPT, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // NAT_BENCH_CLIENT_NODE_OPTIONS: flags for the client's Node.js, e.g. a heap limit.
      execArgv: ['--conditions=vetrs-source', ...settings.clientNodeOptions],
      // NAT_BENCH_CLIENT_ENV: variables for the client's process only ("MALLOC_ARENA_MAX=2 ...").
      env: { ...process.env, ...settings.clientEnv },
    })
  }
  /** One import; onPhase is told each phase as the client begins it. */
  run(command: NatClientCommand, onPhase: (phase: Phase) => void): Promise<NatClientResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`bench client exited (${code})`))
      this.#child.once('exit', onExit)
      const onMessage = (message: unknown) => {
        const answer = message as { phase?: Phase; result?: NatClientResult; error?: string }
        if (answer.phase) return onPhase(answer.phase)
        this.#child.off('exit', onExit)
        this.#child.off('message', onMessage)
        if (answer.result) resolve(answer.result)
        else reject(new Error(`bench client failed: ${answer.error}`))
      }
      this.#child.on('message', onMessage)
      this.#child.send(command)
    })
  }
  close(): void {
    if (this.#child.connected) this.#child.send('exit')
  }
}

interface Run extends NatClientResult {
  rows: number
  recordsPerSecond: number
  /** The service's event loop: the longest and the 99th percentile delay during the run, ms. */
  loopMaxMs: number
  loopP99Ms: number
  /** The service's process (this one): its peak RSS during the run, MB. */
  serverPeakRssMb: number | undefined
  /**
   * Its RSS when the run began, MB: what the peak starts from (the process generated the set and ran
   * earlier runs; memory V8 and malloc keep is not given back), so peak minus start is the run's own.
   */
  serverStartRssMb: number
  /**
   * The service's process.memoryUsage() sampled every 250 ms during the run, at the sample of the
   * highest RSS, MB: how much of it is V8's heap (total and used) and external memory (ArrayBuffers,
   * external strings), and so how much is neither (malloc's, PostgreSQL client buffers, code).
   */
  serverAtPeak: { rss: number; heapTotal: number; heapUsed: number; external: number }
  /** The same, at the highest sample of each phase of the client's (read, map+upload, validate, submit). */
  serverPhases: PhaseMemory[]
}

interface ModeFigures {
  mode: Mode
  stages: Record<string, number>
  totalSeconds: number
  recordsPerSecond: number
  loopMaxMs: number
  clientPeakRssMb: number | undefined
  serverPeakRssMb: number | undefined
  serverStartRssMb: number
  runs: Run[]
}

interface DatabaseFigures {
  database: 'pglite' | 'postgres'
  modes: ModeFigures[]
  problems: string[]
}

const loadAverage = async () => Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0])

/** Waits until the 1-minute load average is under QUIET_LOAD, at most quietSeconds; says how it went. */
async function waitForQuiet(): Promise<{ quiet: boolean; load: number; waitedSeconds: number }> {
  const started = performance.now()
  for (;;) {
    const load = await loadAverage()
    const waitedSeconds = Math.round((performance.now() - started) / 1000)
    if (load < QUIET_LOAD) return { quiet: true, load, waitedSeconds }
    if (waitedSeconds >= settings.quietSeconds) return { quiet: false, load, waitedSeconds }
    process.stdout.write(`  load average ${load} (not under ${QUIET_LOAD}): waiting, ${waitedSeconds} s so far\n`)
    await new Promise((resolve) => setTimeout(resolve, 15_000))
  }
}

const mb = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(0))
const medianOf = (values: (number | undefined)[]) =>
  values.every((value) => value !== undefined) && values.length > 0 ? median(values as number[]) : undefined

async function measure(
  database: DatabaseFigures['database'],
  env: Record<string, string>,
  zipPath: string,
  expectedRecords: number | undefined,
): Promise<DatabaseFigures> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const service = await createService(config, { workers: true })
  const client = new Client()
  const problems: string[] = []
  const loop = monitorEventLoopDelay({ resolution: 10 })
  try {
    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const db = service.database.db
    const once = async (mode: Mode): Promise<Run> => {
      // Every run starts from an empty set of batches (their validation runs and imports go with them).
      await sql`DELETE FROM batch_record`.execute(db)
      await sql`DELETE FROM transaction_batch`.execute(db)
      await sql`VACUUM batch_record, transaction_batch, validation_run, validation_result, nat_import`.execute(db)
      loop.reset()
      loop.enable()
      resetPeakRss()
      const serverStartRssMb = process.memoryUsage().rss / 2 ** 20
      let serverAtPeak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0 }
      const serverPhases: PhaseMemory[] = []
      const sample = () => {
        const usage = process.memoryUsage()
        const now = {
          rss: usage.rss / 2 ** 20,
          heapTotal: usage.heapTotal / 2 ** 20,
          heapUsed: usage.heapUsed / 2 ** 20,
          external: usage.external / 2 ** 20,
        }
        const current = serverPhases.at(-1)
        if (current && now.rss > current.rss)
          Object.assign(current, now, { arrayBuffers: usage.arrayBuffers / 2 ** 20 })
        if (now.rss > serverAtPeak.rss) serverAtPeak = now
      }
      const sampling = setInterval(sample, 250)
      const onPhase = (phase: Phase) => {
        sample()
        serverPhases.push({ phase, rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 })
        sample()
      }
      const result = await client
        .run({ mode, baseUrl, zipPath, jurisdiction: 'VIC', ...CLIENT }, onPhase)
        .finally(() => {
          sample()
          clearInterval(sampling)
        })
      const serverPeakRssMb = peakRssMb()
      loop.disable()
      const counted = await sql<{ n: string | number }>`SELECT count(*) AS n FROM batch_record
        WHERE transaction_batch_token = ${result.transactionBatchToken}`.execute(db)
      return {
        ...result,
        rows: Number(counted.rows[0]?.n ?? 0),
        recordsPerSecond: (result.records / result.totalMs) * 1000,
        loopMaxMs: loop.max / 1e6,
        loopP99Ms: loop.percentile(99) / 1e6,
        serverPeakRssMb,
        serverStartRssMb,
        serverAtPeak,
        serverPhases,
      }
    }
    const runs: Record<Mode, Run[]> = { cli: [], service: [] }
    for (let i = 0; i < settings.runs; i++) {
      const order = i % 2 === 0 ? settings.modes : [...settings.modes].reverse()
      for (const mode of order) {
        const run = await once(mode)
        runs[mode].push(run)
        const stages = Object.entries(run.stages)
          .map(([stage, ms]) => `${stage} ${(ms / 1000).toFixed(2)} s`)
          .join(', ')
        process.stdout.write(
          `  ${database} ${mode}: run ${i + 1}/${settings.runs}: ${run.records} records in ${(run.totalMs / 1000).toFixed(2)} s (${stages}), ${run.recordsPerSecond.toFixed(0)} records/s; event loop max ${run.loopMaxMs.toFixed(0)} ms; peak RSS client ${mb(run.clientPeakRssMb)} MB, service ${mb(run.serverPeakRssMb)} MB (${mb(run.serverStartRssMb)} at the start; at the highest sample RSS ${mb(run.serverAtPeak.rss)}, V8 heap ${mb(run.serverAtPeak.heapTotal)} of which used ${mb(run.serverAtPeak.heapUsed)}, external ${mb(run.serverAtPeak.external)})\n`,
        )
        const phaseLine = (who: string, list: PhaseMemory[] | undefined) =>
          `    ${who} by phase (highest RSS sample: RSS / V8 heap total / used / external MB): ${(list ?? [])
            .map((p) => `${p.phase} ${mb(p.rss)} / ${mb(p.heapTotal)} / ${mb(p.heapUsed)} / ${mb(p.external)}`)
            .join('; ')}\n`
        process.stdout.write(phaseLine('client', run.clientPhases) + phaseLine('service', run.serverPhases))
        if (run.rows !== run.records)
          problems.push(`${mode} run ${i + 1}: ${run.rows} rows stored for ${run.records} records`)
        if (expectedRecords !== undefined && run.records !== expectedRecords)
          problems.push(`${mode} run ${i + 1}: ${run.records} records, the set maps to ${expectedRecords}`)
        if (run.natProblems !== 0) problems.push(`${mode} run ${i + 1}: ${run.natProblems} NAT problems`)
      }
    }
    const modes = settings.modes.map((mode): ModeFigures => {
      const list = runs[mode]
      const stageNames = Object.keys(list[0]?.stages ?? {})
      return {
        mode,
        stages: Object.fromEntries(
          stageNames.map((stage) => [
            stage,
            median(list.map((run) => (run.stages as Record<string, number>)[stage]! / 1000)),
          ]),
        ),
        totalSeconds: median(list.map((run) => run.totalMs / 1000)),
        recordsPerSecond: median(list.map((run) => run.recordsPerSecond)),
        loopMaxMs: median(list.map((run) => run.loopMaxMs)),
        clientPeakRssMb: medianOf(list.map((run) => run.clientPeakRssMb)),
        serverPeakRssMb: medianOf(list.map((run) => run.serverPeakRssMb)),
        serverStartRssMb: median(list.map((run) => run.serverStartRssMb)),
        runs: list,
      }
    })
    return { database, modes, problems }
  } finally {
    loop.disable()
    client.close()
    await service.close()
  }
}

type GeneratedSet = Awaited<ReturnType<typeof writeGeneratedSet>>

/**
 * The set generated and written by a child process of this script: the service runs in this process
 * and its peak RSS is measured, and memory a process once used is not given back (the generator's
 * 100,000 activities left this process at about 390 MB before any run began).
 */
function generateInChild(): Promise<GeneratedSet> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--generate'], { stdio: 'inherit' })
    child.once('message', (message) => resolve(message as GeneratedSet))
    child.once('exit', (code) => code !== 0 && reject(new Error(`generating the set: exit ${code}`)))
  })
}

async function writeGeneratedSet() {
  const generated = generateNatFileSet({
    activities: settings.activities,
    seed: SET.seed,
    rtoCode: SET.rtoCode,
    year: SET.year,
    asOf: SET.asOf,
    referenceData: await readSeedReferenceData(),
  })
  const zipBytes = natZipBytes(generated.entries)
  const zipPath = join(tmpdir(), `vetrs-bench-nat-${process.pid}.zip`)
  await writeFile(zipPath, zipBytes)
  return {
    zip: { length: zipBytes.length },
    natBytes: generated.entries.reduce((sum, entry) => sum + entry.bytes.length, 0),
    counts: generated.lineCounts,
    zipPath,
  }
}

async function main(): Promise<number> {
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} x${cpus().length}`,
    ...settings,
  }
  console.log(`bench nat-import: ${meta.date}, Node ${meta.node}, ${meta.cpu}`)
  // The V8 flags of each process (a heap limit, a capped young generation) change the peaks measured.
  console.log(
    `bench nat-import: service process flags ${JSON.stringify(process.execArgv)} (V8 heap limit ${mb(getHeapStatistics().heap_size_limit / 2 ** 20)} MB, NODE_OPTIONS ${JSON.stringify(process.env.NODE_OPTIONS ?? '')}); client flags ${JSON.stringify(settings.clientNodeOptions)}, client environment ${JSON.stringify(settings.clientEnv)}`,
  )
  console.log(
    `bench nat-import: ${settings.activities} activities, ${settings.runs} run(s) per mode (${settings.modes.join(', ')}), seed ${SET.seed}, as of ${SET.asOf}`,
  )
  if (!adminUrl) console.log('bench nat-import: no DATABASE_URL, PostgreSQL is skipped')

  const generateStarted = performance.now()
  const { zip, natBytes, counts, zipPath } = await generateInChild()
  console.log(
    `bench nat-import: generated in ${((performance.now() - generateStarted) / 1000).toFixed(1)} s: ${counts.NAT00120} activities, ${counts.NAT00080} clients, ${(natBytes / 1e6).toFixed(1)} MB of NAT files, a ${(zip.length / 1e6).toFixed(1)} MB zip`,
  )

  const quiet = await waitForQuiet()
  console.log(
    quiet.quiet
      ? `bench nat-import: machine quiet (load average ${quiet.load}${quiet.waitedSeconds > 0 ? ` after ${quiet.waitedSeconds} s` : ''})`
      : `bench nat-import: MACHINE NOT QUIET: load average ${quiet.load} after waiting ${quiet.waitedSeconds} s; figures are from a busy machine`,
  )

  const results: DatabaseFigures[] = []
  let expected: number | undefined
  try {
    if (settings.pglite) results.push(await measure('pglite', { DATA_DIR: 'memory://' }, zipPath, expected))
    // Every run of every mode must store the same number of records.
    expected = results[0]?.modes[0]?.runs[0]?.records
    if (adminUrl)
      results.push(
        await withFreshPostgres(adminUrl, (url) => measure('postgres', { DATABASE_URL: url }, zipPath, expected)),
      )
  } finally {
    await rm(zipPath, { force: true })
  }
  const loadAfter = await loadAverage()

  const stageNames = ['read', 'map', 'upload', 'import', 'validate', 'submit']
  const rows = [
    [
      'database',
      'mode',
      ...stageNames.map((stage) => `${stage} s`),
      'total s',
      'records/s',
      'activities/s',
      'loop max ms',
      'client peak RSS MB',
      'service peak RSS MB',
      'service RSS at start MB',
    ],
  ]
  for (const result of results) {
    for (const figures of result.modes) {
      rows.push([
        result.database,
        figures.mode,
        ...stageNames.map((stage) => (figures.stages[stage] === undefined ? '-' : figures.stages[stage]!.toFixed(2))),
        figures.totalSeconds.toFixed(2),
        figures.recordsPerSecond.toFixed(0),
        (settings.activities / figures.totalSeconds).toFixed(0),
        figures.loopMaxMs.toFixed(0),
        mb(figures.clientPeakRssMb),
        mb(figures.serverPeakRssMb),
        mb(figures.serverStartRssMb),
      ])
    }
  }
  const records = results[0]?.modes[0]?.runs[0]?.records ?? 0
  console.log(
    `\nNAT import end to end of ${settings.activities} activities (${records} records): medians of ${settings.runs} run(s). cli = read, map, bulk upload from a client, as vetrs nat import; service = POST .../nat-import (read, map, check and upload in the service). Load average ${quiet.load} before, ${loadAfter} after (this bench's own load included).\n`,
  )
  console.log(table(rows, 2))
  const problems = results.flatMap((result) => result.problems.map((problem) => `${result.database}: ${problem}`))
  if (!quiet.quiet) problems.push(`the machine was not quiet (load average ${quiet.load}) when measuring started`)
  if (problems.length > 0)
    console.log(`\nProblems (figures are not trustworthy):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  const brief = (run: Run) => ({
    seconds: Number((run.totalMs / 1000).toFixed(3)),
    stages: Object.fromEntries(
      Object.entries(run.stages).map(([stage, ms]) => [stage, Number((ms / 1000).toFixed(3))]),
    ),
    recordsPerSecond: Math.round(run.recordsPerSecond),
    loopMaxMs: Math.round(run.loopMaxMs),
    loopP99Ms: Math.round(run.loopP99Ms),
    validationResults: run.validation.results,
    clientPeakRssMb: run.clientPeakRssMb === undefined ? null : Math.round(run.clientPeakRssMb),
    serverPeakRssMb: run.serverPeakRssMb === undefined ? null : Math.round(run.serverPeakRssMb),
    serverStartRssMb: Math.round(run.serverStartRssMb),
    serverAtPeakMb: Object.fromEntries(
      Object.entries(run.serverAtPeak).map(([key, value]) => [key, Math.round(value)]),
    ),
    phasesMb: Object.fromEntries(
      (['client', 'service'] as const).map((who) => [
        who,
        (who === 'client' ? run.clientPhases : run.serverPhases)?.map((p) =>
          Object.fromEntries(
            Object.entries(p).map(([key, value]) => [key, typeof value === 'number' ? Math.round(value) : value]),
          ),
        ),
      ]),
    ),
  })
  console.log(
    `\n${JSON.stringify({
      ...meta,
      records,
      natBytes,
      zipBytes: zip.length,
      loadBefore: quiet.load,
      loadAfter,
      quiet: quiet.quiet,
      results: results.map((result) => ({
        database: result.database,
        modes: result.modes.map((figures) => ({
          mode: figures.mode,
          recordsPerSecond: Math.round(figures.recordsPerSecond),
          seconds: Number(figures.totalSeconds.toFixed(3)),
          runs: figures.runs.map(brief),
        })),
        problems: result.problems,
      })),
    })}`,
  )
  return results.some((result) => result.problems.length > 0) ? 1 : 0
}

try {
  if (process.argv[2] === '--generate') {
    process.send?.(await writeGeneratedSet())
    process.disconnect?.()
  } else process.exitCode = await main()
} catch (error) {
  console.error('bench nat-import failed:', error)
  process.exitCode = 1
}
