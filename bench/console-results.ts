// `npm run bench` (last part): the console's results page of a batch with 100,000 failed results
// against the API's failed-validation-results list (issue 20: the page "answers within the same latency
// as the API list endpoints"). One service per database; a batch of students that each fail the USI
// check (one in ten also a second rule) is validated through the API; then, alternating, sequential
// requests of: the API list's first page and a deep page (50 results, as the console shows), and the
// console's batch page (the status, the failed results by rule and one page of them) at the first page,
// the same deep page, and filtered to the rarer rule; and, for what the page reads besides results, the
// API's batch and validation status; and (issue 32) the batch list searched by a record it holds and
// the over-time page's charts. After VACUUM ANALYZE (PostgreSQL; ANALYZE on PGlite): the state
// autovacuum keeps a live database in. A person signs in once through the real OpenID
// Connect flow in Debian's Chromium (as the browser tests do); the requests are then plain fetches with
// the session cookie, so both sides are timed the same way. Prints p50 and p99 and the ratio of the
// console's p99 to the API's first page. PostgreSQL (DATABASE_URL): BENCH_CONSOLE_RESULTS (100,000);
// PGlite: BENCH_CONSOLE_PGLITE_RESULTS (20,000). Skipped, saying why, without Chromium.
import { existsSync } from 'node:fs'
import { sql } from 'kysely'
import { loadConfig } from '../src/config/config.ts'
import { createService } from '../src/app.ts'
import { failingStudents, loadBatch } from './batch-loader.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { launchChromium, signIn, CHROMIUM_PATH } from '../test/console/browser.ts'
import { freePort } from '../test/support/index.ts'
import { demoAuth } from './demo-auth.ts'
import { letters } from '../src/cli/synthetic-data.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100)
const PG_STUDENTS = Number(process.env.BENCH_CONSOLE_RESULTS ?? 100_000)
const PGLITE_STUDENTS = Number(process.env.BENCH_CONSOLE_PGLITE_RESULTS ?? 20_000)
const PAGE_SIZE = 50 // the console's page of results (RESULTS_PAGE_SIZE)
const adminUrl = process.env.DATABASE_URL || undefined

const watchdog = setTimeout(
  () => {
    console.error('console results bench: over budget, giving up')
    process.exit(2)
  },
  30 * 60 * 1000,
)
watchdog.unref()

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

interface Timing {
  name: string
  p50: number
  p99: number
}

/** Each request REQUESTS times after 10 warm-ups, the requests taken in turn so each sees the same machine. */
async function timeInTurn(requests: { name: string; send: () => Promise<Response> }[]): Promise<Timing[]> {
  for (let i = 0; i < 10; i++)
    for (const request of requests) {
      const response = await request.send()
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`${request.name}: ${response.status}`)
    }
  const samples = requests.map(() => [] as number[])
  for (let i = 0; i < REQUESTS; i++)
    for (const [index, request] of requests.entries()) {
      const started = performance.now()
      const response = await request.send()
      await response.arrayBuffer()
      samples[index]!.push(performance.now() - started)
    }
  return requests.map((request, index) => {
    const sorted = samples[index]!.sort((a, b) => a - b)
    return { name: request.name, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
  })
}

async function measure(database: string, env: Record<string, string>, students: number): Promise<string[]> {
  // The built-in identity provider's issuer names the port, so it is chosen first.
  const port = await freePort()
  const service = await createService(
    loadConfig({ LOG_LEVEL: 'silent', PORT: String(port), RATE_LIMIT_MAX: '0', ...env }),
    { workers: true },
  )
  const browser = await launchChromium()
  try {
    const baseUrl = await service.app.listen({ port, host: '127.0.0.1' })
    const auth = await demoAuth(baseUrl)
    const { token } = await loadBatch(service.database.db, students, undefined, failingStudents)
    const batch = `${baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
    const validateStarted = performance.now()
    const validate = await fetch(`${batch}/validate`, { method: 'POST', headers: auth })
    if (!validate.ok) throw new Error(`validate: ${validate.status}`)
    for (;;) {
      const status = (await (await fetch(`${batch}/validate`, { headers: auth })).json()) as {
        validationStatus: string
      }
      if (status.validationStatus === 'Validated') break
      if (performance.now() - validateStarted > 10 * 60_000)
        throw new Error(`validation still ${status.validationStatus}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    console.error(
      `  ${database}: ${students} students validated in ${((performance.now() - validateStarted) / 1000).toFixed(1)} s`,
    )
    // The state autovacuum keeps a live database in (as bench/reconciliation.ts): the rows just
    // written are visible to index-only scans.
    if (database === 'postgres') await sql`VACUUM ANALYZE`.execute(service.database.db)
    else await sql`ANALYZE`.execute(service.database.db)
    const list = `${batch}/failed-validation-results?pageSize=${PAGE_SIZE}`
    const first = (await (await fetch(list, { headers: auth })).json()) as {
      numberOfResults: number
      numberOfPages: number
    }
    const deepPage = Math.max(1, Math.floor(first.numberOfPages * 0.9))

    const { context } = await signIn(browser, baseUrl, 'staff-90001')
    const session = async () =>
      (await context.cookies(`${baseUrl}/console/`)).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ')
    let cookie = await session()
    if (!cookie) throw new Error('no console session cookie after signing in')
    const page = `${baseUrl}/console/rto/90001/batches/NSW/${token}`
    const consolePage =
      (query: string, at = page) =>
      async () => {
        const response = await fetch(`${at}${query}`, { headers: { cookie }, redirect: 'manual' })
        // The session is sealed again on each request (its idle timeout starts again): keep the newest.
        const renewed = response.headers.getSetCookie().find((c) => c.startsWith('vetrs_console='))
        if (renewed) cookie = renewed.split(';')[0]!
        return response
      }
    const check = await consolePage('')()
    const html = await check.text()
    if (check.status !== 200 || !html.includes('Failed results by rule'))
      throw new Error(`console page: ${check.status} ${html.slice(0, 200)}`)

    const timings = await timeInTurn([
      {
        name: `API failed-validation-results, page 1 of ${first.numberOfPages}`,
        send: () => fetch(list, { headers: auth }),
      },
      {
        name: `API failed-validation-results, page ${deepPage}`,
        send: () => fetch(`${list}&pageNumber=${deepPage}`, { headers: auth }),
      },
      // What the console's batch page reads besides the results, as the API answers each.
      { name: 'API batch (record counts by type)', send: () => fetch(batch, { headers: auth }) },
      { name: 'API validation status', send: () => fetch(`${batch}/validate`, { headers: auth }) },
      { name: 'console batch page, page 1', send: consolePage('') },
      { name: `console batch page, page ${deepPage}`, send: consolePage(`?page=${deepPage}`) },
      { name: 'console batch page filtered to rule BRTS01180, page 1', send: consolePage('?rule=BRTS01180') },
      // Issue 32: the batch list searched by a record it holds (one student's family name; the USI
      // every student of the batch shares), and the over-time page's charts (kept aggregates).
      {
        name: 'console batch list searched by a family name',
        send: consolePage(`?q=Bench${letters(students - 7)}`, `${baseUrl}/console/rto/90001/batches`),
      },
      {
        name: `console batch list searched by a USI ${students} records share`,
        send: consolePage('?q=7KQ3NHV8RN', `${baseUrl}/console/rto/90001/batches`),
      },
      { name: 'console over-time page (charts)', send: consolePage('', `${baseUrl}/console/rto/90001/trends`) },
    ])
    await context.close()
    const apiFirst = timings[0]!.p99
    return timings.map(
      (t) =>
        `| ${database} | ${first.numberOfResults} | ${t.name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${(t.p99 / apiFirst).toFixed(2)} |`,
    )
  } finally {
    await browser.close()
    await service.close()
  }
}

if (!existsSync(CHROMIUM_PATH)) {
  console.log(`\nConsole results page: skipped, no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`)
} else {
  const rows = [...(await measure('pglite', { DATA_DIR: 'memory://', DATABASE_URL: '' }, PGLITE_STUDENTS))]
  if (adminUrl)
    rows.push(
      ...(await withFreshPostgres(adminUrl, (databaseUrl) =>
        measure('postgres', { DATABASE_URL: databaseUrl }, PG_STUDENTS),
      )),
    )
  console.log(
    `\nConsole results page against the API list, ${REQUESTS} sequential requests each, in turn, after 10 warm-up rounds (ratio = p99 / the API first page's p99; issue 20: the same latency as the API list)\n`,
  )
  console.log('| Database | Failed results | Request | p50 ms | p99 ms | Ratio to API page 1 p99 |')
  console.log('|---|---|---|---|---|---|')
  for (const row of rows) console.log(row)
}
