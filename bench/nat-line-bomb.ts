// `node bench/nat-line-bomb.ts` (issue 31 item 8): the NAT line bomb, a zip of a few tens of KB whose
// NAT00080 is NAT_BOMB_LINES (default 23,000,000) lines of "1" (46 MB, under the 48 MiB bound), with
// the other files of a small generated set. Measured twice:
//  - the reader alone (readNatZip, in this process): seconds, problems kept and counted, peak RSS;
//  - the service (PGlite in memory, or PostgreSQL in a fresh database with DATABASE_URL): POST
//    .../nat-import end to end (queued as a job, read in the worker thread), then validate and the
//    first page of the batch's findings, each timed, and the service process's peak RSS (VmHWM reset
//    before: bench/peak-rss.ts).
// Bounded: one run, a watchdog of NAT_BOMB_BUDGET_SECONDS (default 300).
import { zipSync } from 'fflate'
import { generateNatFileSet, readNatZip } from '../packages/avetmiss/src/index.ts'
import { createService } from '../src/app.ts'
import { loadConfig } from '../src/config/config.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { withFreshPostgres } from './fresh-postgres.ts'
import { peakRssMb, resetPeakRss } from './peak-rss.ts'
import { positiveInteger } from './settings.ts'

const lines = positiveInteger('NAT_BOMB_LINES', 23_000_000, 24_000_000)
const budget = positiveInteger('NAT_BOMB_BUDGET_SECONDS', 300, 3600)
const adminUrl = process.env.DATABASE_URL || undefined
setTimeout(() => {
  console.error(`bench nat-line-bomb: gave up after ${budget} s`)
  process.exit(2)
}, budget * 1000).unref()

const seconds = (from: number) => Number(((performance.now() - from) / 1000).toFixed(2))

async function buildZip(): Promise<Uint8Array> {
  const entries = generateNatFileSet({
    activities: 20,
    seed: 'nat-line-bomb',
    rtoCode: '90001',
    year: 2026,
    asOf: '2026-06-30',
    referenceData: await readSeedReferenceData(),
  }).entries
  return zipSync(
    Object.fromEntries(
      entries.map((entry) => [
        entry.name,
        entry.name === 'NAT00080.txt' ? Buffer.alloc(lines * 2, '1\n') : entry.bytes,
      ]),
    ),
    { level: 9 },
  )
}

async function viaService(zip: Uint8Array, env: Record<string, string>) {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_MAX: '0', ...env })
  const service = await createService(config, { workers: true })
  try {
    const baseUrl = await service.app.listen({ port: 0, host: '127.0.0.1' })
    const token = (await (
      await fetch(`${baseUrl}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-1',
          client_secret: 'demo-secret-1',
        }),
      })
    ).json()) as { access_token: string }
    const headers = { authorization: `Bearer ${token.access_token}` }
    const v1 = `${baseUrl}/vet-provider/v1/VIC`
    resetPeakRss()
    let started = performance.now()
    const imported = await fetch(`${v1}/nat-import`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/zip' },
      body: zip as Uint8Array<ArrayBuffer>,
    })
    const answer = (await imported.json()) as Record<string, any>
    if (imported.status !== 201) throw new Error(`nat-import: ${imported.status} ${JSON.stringify(answer)}`)
    const importSeconds = seconds(started)
    const importPeakRssMb = peakRssMb()
    const batch = `${v1}/transaction-batch/${answer.transactionBatchToken}`
    started = performance.now()
    await fetch(`${batch}/validate`, { method: 'POST', headers })
    for (;;) {
      const status = (await (await fetch(`${batch}/validate`, { headers })).json()) as Record<string, any>
      if (status.validationStatus === 'Validated') break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const validateSeconds = seconds(started)
    started = performance.now()
    const findings = await fetch(`${batch}/nat-import/findings?pageSize=100`, { headers })
    const page = (await findings.json()) as Record<string, any>
    if (findings.status !== 200) throw new Error(`findings: ${findings.status} ${JSON.stringify(page)}`)
    return {
      importSeconds,
      importPeakRssMb: importPeakRssMb === undefined ? null : Math.round(importPeakRssMb),
      natProblemCount: answer.natProblemCount as number,
      natProblemsListed: (answer.natProblems as unknown[]).length,
      recordCount: answer.recordCount as number,
      validateSeconds,
      findingsPageSeconds: seconds(started),
      findingsOnPage: (page.results as unknown[]).length,
      peakRssMb: Math.round(peakRssMb() ?? 0),
    }
  } finally {
    await service.close()
  }
}

const zip = await buildZip()
console.log(
  `bench nat-line-bomb: ${lines} NAT00080 lines (${((lines * 2) / 1e6).toFixed(1)} MB) in a ${zip.length} byte zip`,
)
resetPeakRss()
let started = performance.now()
const read = await readNatZip(zip, { maxUncompressedBytes: 48 * 1024 * 1024, maxProblems: 1000 })
const reader = {
  seconds: seconds(started),
  problemsKept: read.problems.length,
  problemCount: read.problemCount,
  peakRssMb: Math.round(peakRssMb() ?? 0),
  stopped: read.problems.find((problem) => problem.message.startsWith('Reading of'))?.message,
}
console.log('reader:', JSON.stringify(reader))
started = performance.now()
const pglite = await viaService(zip, { DATA_DIR: 'memory://' })
console.log('service on PGlite:', JSON.stringify(pglite))
if (adminUrl) {
  const postgres = await withFreshPostgres(adminUrl, (url) => viaService(zip, { DATABASE_URL: url }))
  console.log('service on PostgreSQL:', JSON.stringify(postgres))
}
