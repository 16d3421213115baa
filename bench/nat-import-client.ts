// The client side of the NAT import benchmark (bench/nat-import.ts), run as a child process (with the
// vetrs-source condition, so the CLI's modules resolve @vetrs/avetmiss and @vetrs/client to their
// sources) so that it never shares the service's event loop. One command at a time over IPC, one
// import of the zip end to end, each stage timed:
//  - cli: what `vetrs nat import` does (packages/cli/src/nat/import.ts), stage by stage: read the zip
//    (indexNatZip: one entry at a time, the client files' lines kept as positions), map (the code
//    translator from the service's reference data through the SDK, the organisation check, then each
//    chunk's client lines read again, checked (NatSetChecker) and mapped: mapClientChunks), upload (a
//    new batch, then each chunk's held history, indexes and upload through the SDK's uploadMany: the
//    CLI's uploadInChunks); map and upload interleave
//    chunk by chunk, so the map stage is the time spent mapping chunks and upload the rest; validate;
//  - service: the zip sent to POST .../nat-import (the service reads, maps, checks and stores it in
//    one request), then validate.
// Validate is POST validate, then GET validate every 50 ms until Validated; then submit (POST submit,
// when nothing blocks). Each run reports the client process's peak RSS (VmHWM, reset at its start).
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import {
  DEFAULT_CHUNK_LINES,
  indexNatZip,
  mapClientChunks,
  type NatProblem,
  type NatResourceChunk,
  NatSetChecker,
} from '../packages/avetmiss/src/index.ts'
import { codeTranslatorFromService } from '../packages/cli/src/nat/reference-codes.ts'
import { uploadInChunks } from '../packages/cli/src/nat/upload-chunks.ts'
import { Vetrs } from '../packages/client/src/index.ts'
import { peakRssMb, resetPeakRss } from './peak-rss.ts'

export interface NatClientCommand {
  mode: 'cli' | 'service'
  baseUrl: string
  zipPath: string
  jurisdiction: 'VIC'
  clientId: string
  clientSecret: string
}

export interface NatClientResult {
  mode: NatClientCommand['mode']
  transactionBatchToken: string
  /** Records the import stored (cli: mapped and uploaded; service: recordCount of its answer). */
  records: number
  natProblems: number
  /** Milliseconds by stage; `import` is the service's read, map, check and upload in one request. */
  stages: Partial<Record<'read' | 'map' | 'upload' | 'import' | 'validate' | 'submit', number>>
  totalMs: number
  /** The client process's peak RSS during the run, MB (undefined without /proc). */
  clientPeakRssMb?: number
  validation: { blocking: boolean; results: number }
  /**
   * The client's process.memoryUsage() at its highest RSS sample (every 100 ms) in each phase, MB:
   * which phase sets the peak and how much of it is V8's heap, external memory and neither.
   */
  clientPhases?: PhaseMemory[]
}

/** A phase of a run, told to the bench (the service's side samples by it too). */
export type Phase = 'read' | 'map+upload' | 'validate' | 'submit'
export interface PhaseMemory {
  phase: Phase
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
}

const MB = 2 ** 20
// NAT_BENCH_CHUNK_LINES: client-file lines per chunk, to measure what the chunk's size costs in memory and time.
const CHUNK_LINES = Number(process.env.NAT_BENCH_CHUNK_LINES) || DEFAULT_CHUNK_LINES
let phases: PhaseMemory[] = []
/** Starts a phase: the client's samples go to it, and the bench is told (for the service's samples). */
function phase(name: Phase): void {
  sample()
  if (process.env.NAT_BENCH_SMAPS === '1' && phases.length > 0)
    process.stdout.write(`    client after ${phases.at(-1)!.phase}: RSS MB by mapping: ${smapsSummary()}\n`)
  phases.push({ phase: name, rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 })
  process.send?.({ phase: name })
  sample()
}
/**
 * NAT_BENCH_SMAPS=1: the client's resident memory by kind of mapping at the end of each phase, from
 * /proc/self/smaps: the brk heap (malloc's main arena), anonymous mappings by size (V8's pages are
 * 256 KiB to a few MiB; malloc's thread arenas are reserved 64 MiB at a time; large ones are V8's
 * large objects or malloc's mmapped blocks) and files (code, the node binary).
 */
function smapsSummary(): string {
  let text: string
  try {
    text = readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return 'no /proc/self/smaps'
  }
  const sums = new Map<string, number>()
  let kind = ''
  for (const line of text.split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (range) {
      const size = (Number.parseInt(range[2]!, 16) - Number.parseInt(range[1]!, 16)) / 2 ** 20
      const name = range[3] ?? ''
      kind =
        name === '[heap]'
          ? 'brk heap'
          : name.startsWith('/')
            ? 'files'
            : name !== ''
              ? name
              : size <= 1
                ? 'anon <=1 MiB'
                : size <= 8
                  ? 'anon 1-8 MiB'
                  : size < 60
                    ? 'anon 8-60 MiB'
                    : 'anon >=60 MiB'
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss) sums.set(kind, (sums.get(kind) ?? 0) + Number(rss[1]) / 1024)
  }
  return [...sums].map(([name, mb]) => `${name} ${mb.toFixed(0)}`).join(', ')
}

function sample(): void {
  const current = phases.at(-1)
  if (!current) return
  const usage = process.memoryUsage()
  if (usage.rss / MB <= current.rss) return
  Object.assign(current, {
    rss: usage.rss / MB,
    heapTotal: usage.heapTotal / MB,
    heapUsed: usage.heapUsed / MB,
    external: usage.external / MB,
    arrayBuffers: usage.arrayBuffers / MB,
  })
}

async function token(command: NatClientCommand): Promise<string> {
  const response = await fetch(`${command.baseUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: command.clientId,
      client_secret: command.clientSecret,
    }),
    signal: AbortSignal.timeout(10_000),
  })
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}

async function validate(command: NatClientCommand, auth: string, batch: string) {
  const path = `${command.baseUrl}/vet-provider/v1/${command.jurisdiction}/transaction-batch/${batch}/validate`
  const headers = { authorization: `Bearer ${auth}` }
  const requested = await fetch(path, { method: 'POST', headers })
  if (requested.status !== 201) throw new Error(`validate: ${requested.status} ${await requested.text()}`)
  for (;;) {
    const status = (await (await fetch(path, { headers })).json()) as Record<string, any>
    if (status.validationStatus === 'Validated')
      return { blocking: status.hasBlockingValidationFailures as boolean, results: status.numberOfResults as number }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function submit(command: NatClientCommand, auth: string, batch: string) {
  const path = `${command.baseUrl}/vet-provider/v1/${command.jurisdiction}/transaction-batch/${batch}/submit`
  const submitted = await fetch(path, { method: 'POST', headers: { authorization: `Bearer ${auth}` } })
  if (submitted.status !== 200) throw new Error(`submit: ${submitted.status} ${await submitted.text()}`)
}

async function viaCli(command: NatClientCommand): Promise<NatClientResult> {
  const client = new Vetrs({
    baseUrl: command.baseUrl,
    credentials: { clientId: command.clientId, clientSecret: command.clientSecret },
  })
  // A new client per import, as each `vetrs nat import` is: its token and the bulk upload's offer
  // (GET /openapi.json) are fetched on the clock, by the map and upload stages.
  const auth = await token(command)
  const stages: NatClientResult['stages'] = {}
  const started = performance.now()
  let at = started
  const lap = (stage: keyof NatClientResult['stages']) => {
    const now = performance.now()
    stages[stage] = now - at
    at = now
  }
  phase('read')
  const read = await indexNatZip(command.zipPath)
  lap('read')
  phase('map+upload')
  const codes = await codeTranslatorFromService(client)
  const rtoCode = read.records.NAT00010[0]?.values.trainingOrganisationIdentifier ?? ''
  // As the CLI: the organisation check from what the read counted, the NAT checks chunk by chunk.
  const others = read.organisations.others(rtoCode)
  if (others.length > 0)
    throw new Error(`another organisation's files: ${others.map((other) => other.value).join(', ')}`)
  const checker = new NatSetChecker(read)
  function* checked() {
    for (const chunk of read.clientChunks(CHUNK_LINES)) {
      checker.addClients(chunk)
      yield chunk
    }
  }
  let mapMs = performance.now() - at
  const batch = (await client.createBatch(command.jurisdiction)).transactionBatchToken
  // The time spent in the generator (reading a chunk's lines again, checking and mapping them) is the
  // mapping's; the rest of the loop is the upload's.
  const chunks = mapClientChunks(checked(), read, { rtoCode, codes })
  function* timed(): Generator<NatResourceChunk, NatProblem[], void> {
    for (;;) {
      const started = performance.now()
      const next = chunks.next()
      mapMs += performance.now() - started
      if (next.done) return next.value
      yield next.value
    }
  }
  const uploaded = await uploadInChunks(client, command.jurisdiction, batch, timed())
  if (uploaded.refused) throw new Error(`upload refused: ${uploaded.refused.error.message}`)
  checker.findings() // on the clock, as the CLI makes them (not counted as NAT problems: warnings of the day it runs)
  // From the end of the read: the codes and the chunks' mapping are the map stage, the rest the upload's.
  stages.map = mapMs
  stages.upload = performance.now() - at - mapMs
  at = performance.now()
  phase('validate')
  const validation = await validate(command, auth, batch)
  lap('validate')
  phase('submit')
  if (!validation.blocking) await submit(command, auth, batch)
  lap('submit')
  return {
    mode: 'cli',
    transactionBatchToken: batch,
    records: uploaded.upload?.recordCount ?? 0,
    natProblems: read.problemCount + uploaded.problems.length,
    stages,
    totalMs: performance.now() - started,
    validation,
  }
}

async function viaService(command: NatClientCommand): Promise<NatClientResult> {
  const auth = await token(command)
  const zip = await readFile(command.zipPath)
  const started = performance.now()
  phase('map+upload')
  const response = await fetch(`${command.baseUrl}/vet-provider/v1/${command.jurisdiction}/nat-import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/zip' },
    body: zip,
  })
  const answer = (await response.json()) as Record<string, any>
  if (response.status !== 201) throw new Error(`nat-import: ${response.status} ${JSON.stringify(answer)}`)
  const imported = performance.now()
  phase('validate')
  const validation = await validate(command, auth, answer.transactionBatchToken)
  const validated = performance.now()
  phase('submit')
  if (!validation.blocking) await submit(command, auth, answer.transactionBatchToken)
  const done = performance.now()
  return {
    mode: 'service',
    transactionBatchToken: answer.transactionBatchToken,
    records: answer.recordCount,
    natProblems: answer.natProblemCount,
    stages: { import: imported - started, validate: validated - imported, submit: done - validated },
    totalMs: done - started,
    validation,
  }
}

process.on('message', async (message: NatClientCommand | 'exit') => {
  if (message === 'exit') {
    process.disconnect()
    return
  }
  try {
    resetPeakRss()
    phases = []
    const sampling = setInterval(sample, 100)
    const result = await (message.mode === 'cli' ? viaCli(message) : viaService(message)).finally(() =>
      clearInterval(sampling),
    )
    const clientPeakRssMb = peakRssMb()
    process.send?.({
      result: { ...result, clientPhases: phases, ...(clientPeakRssMb === undefined ? {} : { clientPeakRssMb }) },
    })
  } catch (error) {
    process.send?.({ error: (error as Error).stack ?? String(error) })
  }
})
