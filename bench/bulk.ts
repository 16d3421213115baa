// `node bench/bulk.ts` (the fifth part of `npm run bench`, issue 19): bulk ingestion against
// record-by-record upload of the same Students in the same run, on embedded PGlite (always) and on
// PostgreSQL (when DATABASE_URL is set). Per database one service (as createService builds it, queue
// workers off), and one client process (bench/bulk-client.ts) that uploads BENCH_BULK_RECORDS Students
// into a new batch per run: record by record at BENCH_UPLOAD_CONNECTIONS connections, and through
// the SDK's uploadMany (the bulk upload). The modes alternate, order flipped every run; before each
// run the batch records are deleted and vacuumed; after each run the stored rows are counted. Prints
// records/s per mode (median of BENCH_RUNS runs), the ratio bulk / record-by-record, and the CPU time
// each record cost, per process (client, service, and on PostgreSQL the database's backends), read
// from /proc: what bulk saves whatever the number of cores. On PostgreSQL a third mode runs in the same
// rotation: PostgreSQL's own COPY of the same Students from the client process into a scratch table of
// batch_record's shape and indexes (issue 30: the ceiling of any service in front of the database), and
// the ratio bulk / COPY is held against the target (at least 0.5). The peak RSS of this process (the
// service, and PGlite inside it) is printed per database. On PostgreSQL it also measures the database's
// CPU to parse the same Students into jsonb alone (parseCost): work every upload pays once per record,
// which no change to the upload path removes.
import { fork, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createServiceForTests } from '../test/support/service-for-tests.ts'
import type { Database } from '../src/platform/db/schema.ts'
import { benchStudents } from './bench-students.ts'
import type { ClientCommand, ClientResult } from './bulk-client.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { table } from './table.ts'
import { cpuMsOf } from './process-cpu.ts'
import { createBatch } from './student.ts'
import { median, positiveInteger } from './settings.ts'

const settings = {
  runs: positiveInteger('BENCH_RUNS', 3, 50),
  records: positiveInteger('BENCH_BULK_RECORDS', 10_000, 1_000_000),
  connections: positiveInteger('BENCH_UPLOAD_CONNECTIONS', 50, 1000),
}
const adminUrl = process.env.DATABASE_URL || undefined
/** BENCH_BULK_PGLITE=0: PostgreSQL only (profiling the bulk path there, or a shorter run). */
const withPglite = process.env.BENCH_BULK_PGLITE !== '0'
/** Issue 30: bulk ingestion at least this share of PostgreSQL's own COPY of the same Students. */
const TARGET_RATIO = 0.5
const WARMUP_RECORDS = 1_000
/** The scratch table COPY writes into: batch_record's columns, defaults, constraints and indexes. */
const COPY_TABLE = 'bench_copy_record'

// Bounded: record by record at a pessimistic 300 records/s, bulk at 1,000, plus start-up per database.
const budgetSeconds =
  (adminUrl ? 2 : 1) * ((settings.runs + 1) * (settings.records / 300 + settings.records / 1_000 + 20) + 120)
const watchdog = setTimeout(() => {
  console.error(`bench: gave up after ${Math.round(budgetSeconds)} s (over budget)`)
  process.exit(2)
}, budgetSeconds * 1000)
watchdog.unref()

const CLIENT_SCRIPT = fileURLToPath(new URL('./bulk-client.ts', import.meta.url))

class Client {
  readonly #child: ChildProcess
  constructor() {
    this.#child = fork(CLIENT_SCRIPT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  }
  run(command: ClientCommand): Promise<ClientResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`bench client exited (${code})`))
      this.#child.once('exit', onExit)
      this.#child.once('message', (message) => {
        this.#child.off('exit', onExit)
        const answer = message as { result?: ClientResult; error?: string }
        if (answer.result) resolve(answer.result)
        else reject(new Error(`bench client failed: ${answer.error}`))
      })
      this.#child.send(command)
    })
  }
  get pid(): number | undefined {
    return this.#child.pid
  }
  close(): void {
    if (this.#child.connected) this.#child.send('exit')
  }
}

interface Run extends ClientResult {
  rows: number
  recordsPerSecond: number
  /** CPU microseconds per record, user + system, per process; database undefined where not readable (PGlite runs in the service). */
  cpu: { client: number; service: number; database: number | undefined }
  /** Peak RSS of this process (the service) during the run, MB. */
  peakRssMb: number
}

interface ModeFigures {
  recordsPerSecond: number
  /** Medians over the runs, CPU microseconds per record. */
  cpu: { client: number; service: number; database: number | undefined; total: number }
  /** The highest of the runs' peaks. */
  peakRssMb: number
  runs: Run[]
}

interface DatabaseFigures {
  database: 'pglite' | 'postgres'
  single: ModeFigures
  bulk: ModeFigures
  /** PostgreSQL only: its own COPY of the same Students. */
  copy: ModeFigures | undefined
  ratio: number
  /** bulk / COPY, PostgreSQL only. */
  copyRatio: number | undefined
  pass: boolean | undefined
  /** Peak RSS of this process (the service, PGlite inside it on PGlite) while this database was measured, MB. */
  peakRssMb: number
  /** RSS of this process when its service had started, before any run, MB. */
  startRssMb: number
  /** PostgreSQL only: its CPU per record to take the same Students as text, and to parse them into jsonb. */
  parse: { receiveUs: number; jsonbUs: number } | undefined
  problems: string[]
}

/** This process's peak resident set (VmHWM), MB. */
function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? Number(match[1]) / 1024 : Number.NaN
}

/** Starts the peak resident set (VmHWM) again from the current one (Linux: clear_refs 5). */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    // Not Linux, or not allowed: the peak is then the process's since it started.
  }
}

async function measure(database: DatabaseFigures['database'], env: Record<string, string>): Promise<DatabaseFigures> {
  resetPeakRss()
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const service = await createServiceForTests(config, { workers: false })
  const startRssMb = process.memoryUsage().rss / 1048576
  const client = new Client()
  const problems: string[] = []
  try {
    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const token = await fetchToken(baseUrl)
    const db = service.database.db
    const headers = { authorization: `Bearer ${token}` }
    // The database's backends serving this service (PostgreSQL on this machine: loopback only).
    const backends = async () =>
      database === 'postgres'
        ? (
            await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.execute(db)
          ).rows.map((row) => row.pid)
        : []
    const copying = database === 'postgres'
    if (copying) await sql`CREATE TABLE ${sql.raw(COPY_TABLE)} (LIKE batch_record INCLUDING ALL)`.execute(db)
    const once = async (mode: ClientCommand['mode'], count: number): Promise<Run> => {
      await sql`DELETE FROM batch_record`.execute(db)
      await sql`VACUUM batch_record, transaction_batch`.execute(db)
      if (copying) {
        await sql`DELETE FROM ${sql.raw(COPY_TABLE)}`.execute(db)
        await sql`VACUUM ${sql.raw(COPY_TABLE)}`.execute(db)
      }
      const batch = await createBatch(baseUrl, headers)
      const rto = (
        await sql<{
          rto_id: string
        }>`SELECT rto_id FROM transaction_batch WHERE transaction_batch_token = ${batch}`.execute(db)
      ).rows[0]!.rto_id
      resetPeakRss()
      const before = { service: process.cpuUsage(), client: cpuMsOf([client.pid!]), pids: await backends() }
      const databaseBefore = cpuMsOf(before.pids)
      const result = await client.run({
        mode,
        baseUrl,
        token,
        batch,
        count,
        connections: settings.connections,
        copy: mode === 'copy' ? { databaseUrl: env.DATABASE_URL!, table: COPY_TABLE, rto } : undefined,
      })
      const service = process.cpuUsage(before.service)
      const peak = peakRssMb()
      // Backends opened during the run count from zero; those that closed are lost (the pool keeps them).
      const after = await backends()
      const databaseAfter = cpuMsOf(after.filter((pid) => before.pids.includes(pid)))
      const opened = cpuMsOf(after.filter((pid) => !before.pids.includes(pid)))
      const perRecordUs = (ms: number | undefined) => (ms === undefined ? undefined : (ms * 1000) / count)
      const cpu = {
        client: perRecordUs((cpuMsOf([client.pid!]) ?? 0) - (before.client ?? 0))!,
        service: (service.user + service.system) / count,
        database:
          database === 'postgres' && databaseBefore !== undefined && databaseAfter !== undefined && opened !== undefined
            ? perRecordUs(databaseAfter - databaseBefore + opened)
            : undefined,
      }
      const counted = await sql<{ n: string | number }>`SELECT count(*) AS n
        FROM ${sql.raw(mode === 'copy' ? COPY_TABLE : 'batch_record')}
        WHERE transaction_batch_token = ${batch}`.execute(db)
      const rows = Number(counted.rows[0]?.n ?? 0)
      return { ...result, rows, recordsPerSecond: (result.count / result.ms) * 1000, cpu, peakRssMb: peak }
    }
    const modes: ClientCommand['mode'][] = copying ? ['single', 'bulk', 'copy'] : ['single', 'bulk']
    for (const mode of modes) {
      process.stdout.write(`  ${database} ${mode}: warm-up, ${WARMUP_RECORDS} records\n`)
      await once(mode, WARMUP_RECORDS)
    }
    const runs: Record<ClientCommand['mode'], Run[]> = { single: [], bulk: [], copy: [] }
    for (let i = 0; i < settings.runs; i++) {
      for (const mode of i % 2 === 0 ? modes : [...modes].reverse()) {
        const run = await once(mode, settings.records)
        runs[mode].push(run)
        process.stdout.write(
          `  ${database} ${mode}: run ${i + 1}/${settings.runs}: ${run.count} records in ${(run.ms / 1000).toFixed(2)} s, ${run.recordsPerSecond.toFixed(0)} records/s, ${run.requests} requests\n`,
        )
        const good = mode === 'single' ? (run.statuses['201'] ?? 0) : run.count
        if (good !== run.count || run.created !== run.count)
          problems.push(
            `${mode} run ${i + 1}: ${run.created} of ${run.count} created, statuses ${JSON.stringify(run.statuses)}`,
          )
        if (run.rows !== run.count)
          problems.push(`${mode} run ${i + 1}: ${run.rows} rows stored for ${run.count} records`)
      }
    }
    const figures = (list: Run[]): ModeFigures => {
      const database = list.every((r) => r.cpu.database !== undefined)
        ? median(list.map((r) => r.cpu.database!))
        : undefined
      return {
        recordsPerSecond: median(list.map((r) => r.recordsPerSecond)),
        cpu: {
          client: median(list.map((r) => r.cpu.client)),
          service: median(list.map((r) => r.cpu.service)),
          database,
          total: median(list.map((r) => r.cpu.client + r.cpu.service + (r.cpu.database ?? 0))),
        },
        peakRssMb: Math.max(...list.map((r) => r.peakRssMb)),
        runs: list,
      }
    }
    const single = figures(runs.single)
    const bulk = figures(runs.bulk)
    const copy = copying ? figures(runs.copy) : undefined
    const ratio = bulk.recordsPerSecond / single.recordsPerSecond
    const copyRatio = copy ? bulk.recordsPerSecond / copy.recordsPerSecond : undefined
    return {
      database,
      single,
      bulk,
      copy,
      ratio,
      copyRatio,
      pass: copyRatio === undefined ? undefined : copyRatio >= TARGET_RATIO,
      peakRssMb: Math.max(single.peakRssMb, bulk.peakRssMb, copy?.peakRssMb ?? 0),
      startRssMb,
      parse: database === 'postgres' ? await parseCost(db) : undefined,
      problems,
    }
  } finally {
    client.close()
    await service.close()
  }
}

/**
 * What PostgreSQL's backend spends per record, before any row is written, on the same Students in
 * statements of 1,000: taking the JSON text in (SELECT length($1::text)), and that plus parsing it into
 * jsonb (the type of record bodies). Every upload pays the parse once per record, bulk or not: it
 * marks the part of bulk's CPU per record no change to the upload path can remove. Medians of the runs.
 */
async function parseCost(db: Kysely<Database>): Promise<{ receiveUs: number; jsonbUs: number }> {
  const students = benchStudents(settings.records)
  const chunks: string[] = []
  for (let i = 0; i < students.length; i += 1000) chunks.push(JSON.stringify(students.slice(i, i + 1000)))
  return db.connection().execute(async (connection) => {
    const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(connection)).rows[0]!.pid
    const usPerRecord = async (statement: (text: string) => RawBuilder<unknown>) => {
      const before = cpuMsOf([pid])!
      for (const text of chunks) await statement(text).execute(connection)
      return ((cpuMsOf([pid])! - before) * 1000) / students.length
    }
    const receive: number[] = []
    const jsonb: number[] = []
    for (let run = 0; run < settings.runs; run++) {
      receive.push(await usPerRecord((text) => sql`SELECT length(${text}::text)`))
      jsonb.push(await usPerRecord((text) => sql`SELECT jsonb_typeof(${text}::jsonb)`))
    }
    return { receiveUs: median(receive), jsonbUs: median(jsonb) }
  })
}

async function fetchToken(baseUrl: string): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'demo-rto-1',
    client_secret: 'demo-secret-1',
  })
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', body, signal: AbortSignal.timeout(10_000) })
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** The 1, 5 and 15-minute load averages: figures taken on a busy machine say so. */
function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
}

async function main(): Promise<number> {
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} x${cpus().length}`,
    ...settings,
    targetRatio: TARGET_RATIO,
  }
  console.log(`bench bulk: ${meta.date}, Node ${meta.node}, ${meta.cpu}, load average ${loadAverage()}`)
  console.log(
    `bench bulk: ${settings.records} Students per run, ${settings.runs} run(s) per mode; record by record at ${settings.connections} connections, bulk through the SDK's uploadMany`,
  )
  if (!adminUrl) console.log('bench bulk: no DATABASE_URL, PostgreSQL is skipped')
  // PostgreSQL first: the in-memory PGlite keeps its memory after it closes, which would count in the
  // next database's peak RSS.
  const results: DatabaseFigures[] = []
  if (adminUrl) results.push(await withFreshPostgres(adminUrl, (url) => measure('postgres', { DATABASE_URL: url })))
  if (withPglite) results.push(await measure('pglite', { DATA_DIR: 'memory://' }))

  const rows = [
    [
      'database',
      'record by record, records/s',
      'bulk, records/s',
      'COPY, records/s',
      'bulk / record by record',
      'bulk / COPY',
      'target',
      'RSS MB at start / peak record by record / peak bulk',
    ],
  ]
  for (const result of results) {
    rows.push([
      result.database,
      result.single.recordsPerSecond.toFixed(0),
      result.bulk.recordsPerSecond.toFixed(0),
      result.copy ? result.copy.recordsPerSecond.toFixed(0) : '-',
      result.ratio.toFixed(2),
      result.copyRatio === undefined ? '-' : result.copyRatio.toFixed(2),
      result.pass === undefined ? '-' : `${result.pass ? 'PASS' : 'FAIL'} (bulk / COPY >= ${TARGET_RATIO})`,
      `${result.startRssMb.toFixed(0)} / ${result.single.peakRssMb.toFixed(0)} / ${result.bulk.peakRssMb.toFixed(0)}`,
    ])
  }
  console.log(
    `\nBulk ingestion against record-by-record upload of the same ${settings.records} Students: medians of ${settings.runs} run(s).\n`,
  )
  console.log(table(rows, 1))
  console.log(
    `COPY: PostgreSQL's own COPY of the same Students, the text built before the clock, from the client process into a scratch table of batch_record's shape and indexes (${COPY_TABLE}, LIKE batch_record INCLUDING ALL). RSS: this process, which holds the service (and PGlite), when the service had started, and its peak during the runs of each mode (the peak counted again from the current RSS before each run).`,
  )
  const cpuRows = [
    ['database', 'mode', 'client us', 'service us', 'database us', 'total us', 'record by record / bulk'],
  ]
  for (const result of results) {
    for (const mode of ['single', 'bulk', 'copy'] as const) {
      const cpu = result[mode]?.cpu
      if (!cpu) continue
      cpuRows.push([
        result.database,
        mode === 'single' ? 'record by record' : mode,
        cpu.client.toFixed(0),
        cpu.service.toFixed(0),
        cpu.database === undefined ? '(in service)' : cpu.database.toFixed(0),
        cpu.total.toFixed(0),
        mode === 'bulk' ? (result.single.cpu.total / cpu.total).toFixed(2) : '',
      ])
    }
  }
  console.log(
    `\nCPU time per record (user + system, microseconds, medians): the client process, the service (with PGlite inside it), PostgreSQL's backends for the service. ${cpus().length} cores shared by all of them.\n`,
  )
  console.log(table(cpuRows, 2))
  for (const result of results) {
    if (!result.parse) continue
    const { receiveUs, jsonbUs } = result.parse
    console.log(
      `\n${result.database}: the database's CPU per record to parse the same Students into jsonb, which every upload pays once: ${(jsonbUs - receiveUs).toFixed(0)} us (${jsonbUs.toFixed(0)} us with taking the text in, ${receiveUs.toFixed(0)} us for that alone), against bulk's ${result.bulk.cpu.database?.toFixed(0) ?? '?'} us in the database and ${result.bulk.cpu.total.toFixed(0)} us in all.`,
    )
  }
  console.log(`\nLoad average at the end: ${loadAverage()}`)
  const problems = results.flatMap((result) => result.problems.map((problem) => `${result.database}: ${problem}`))
  if (problems.length > 0)
    console.log(`\nProblems (figures are not trustworthy):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  const brief = (run: Run) => ({
    recordsPerSecond: Math.round(run.recordsPerSecond),
    seconds: Number((run.ms / 1000).toFixed(3)),
    requests: run.requests,
    rows: run.rows,
  })
  console.log(
    `\n${JSON.stringify({
      ...meta,
      results: results.map((result) => ({
        database: result.database,
        single: {
          recordsPerSecond: Math.round(result.single.recordsPerSecond),
          cpuUsPerRecord: result.single.cpu,
          runs: result.single.runs.map(brief),
        },
        bulk: {
          recordsPerSecond: Math.round(result.bulk.recordsPerSecond),
          cpuUsPerRecord: result.bulk.cpu,
          runs: result.bulk.runs.map(brief),
        },
        copy: result.copy && {
          recordsPerSecond: Math.round(result.copy.recordsPerSecond),
          cpuUsPerRecord: result.copy.cpu,
          runs: result.copy.runs.map(brief),
        },
        ratio: Number(result.ratio.toFixed(3)),
        copyRatio: result.copyRatio === undefined ? undefined : Number(result.copyRatio.toFixed(3)),
        pass: result.pass,
        peakRssMb: Math.round(result.peakRssMb),
        startRssMb: Math.round(result.startRssMb),
        singlePeakRssMb: Math.round(result.single.peakRssMb),
        bulkPeakRssMb: Math.round(result.bulk.peakRssMb),
        jsonbParseUsPerRecord: result.parse && Number((result.parse.jsonbUs - result.parse.receiveUs).toFixed(1)),
        problems: result.problems,
      })),
    })}`,
  )
  return problems.length > 0 ? 1 : 0
}

try {
  process.exitCode = await main()
} catch (error) {
  console.error('bench bulk failed:', error)
  process.exitCode = 1
}
