// `node bench/nat-memory.ts`: what the CLI's NAT import holds, stage by stage, at NAT_BENCH_ACTIVITIES
// (default 100,000) activities, without a service (issue 31 item 9). The set is generated as
// bench/nat-import.ts generates it and written as a zip; then, each in a fresh process (with
// --expose-gc), the zip is read and mapped:
//  - whole: as before the streaming, natToResources over the whole set, then what the CLI indexed for
//    its findings (originIndexOf, natTermsOf, the bodies by UID), everything held together;
//  - chunks: natToResourceChunks, keeping per chunk what the CLI's uploadInChunks keeps (the bodies,
//    compact origins and identities, gzip-compressed per chunk: CompressedRecords), each chunk's lines and records let go (no upload: the upload's own
//    memory, a few requests' NDJSON and gzip, is in bench/nat-import.ts's figures);
//  - indexed: as `vetrs nat import` reads now: indexNatZip (the client files' lines kept as positions),
//    then each chunk's lines read again, checked (NatSetChecker) and mapped (mapClientChunks), kept
//    as CompressedRecords; the largest of the figures after each chunk is printed too.
// Prints RSS, V8 heap used and external memory after a forced GC at each stage, and the process's peak
// RSS (VmHWM). Peak RSS does not depend much on the machine's load.
import { fork } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  codeTranslatorFrom,
  CompressedRecords,
  DEFAULT_CHUNK_LINES,
  generateNatFileSet,
  indexNatZip,
  mapClientChunks,
  NatSetChecker,
  natTermsOf,
  natToResourceChunks,
  natToResources,
  natZipBytes,
  originIndexOf,
  readNatZip,
} from '../packages/avetmiss/src/index.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { peakRssMb } from './peak-rss.ts'
import { positiveInteger } from './settings.ts'
import { table } from './table.ts'

type Mode = 'whole' | 'chunks' | 'indexed'
const SET = { seed: 'bench-nat-import', rtoCode: '90001', year: 2026, asOf: '2026-06-30' } as const
const MB = 2 ** 20

interface Stage {
  stage: string
  rss: number
  heapTotal: number
  heap: number
  external: number
}

function measure(stage: string): Stage {
  ;(globalThis as { gc?: () => void }).gc?.()
  const usage = process.memoryUsage()
  return {
    stage,
    rss: usage.rss / MB,
    heapTotal: usage.heapTotal / MB,
    heap: usage.heapUsed / MB,
    external: usage.external / MB,
  }
}

async function measureIn(mode: Mode, zipPath: string): Promise<{ stages: Stage[]; peak: number | undefined }> {
  const stages = [measure('start (modules)')]
  const codes = codeTranslatorFrom(await readSeedReferenceData())
  stages.push(measure('reference data'))
  if (mode === 'indexed') {
    const read = await indexNatZip(zipPath)
    stages.push(measure('indexNatZip'))
    const kept = new CompressedRecords()
    const checker = new NatSetChecker(read, { asOf: SET.asOf })
    function* checked() {
      for (const chunk of read.clientChunks(DEFAULT_CHUNK_LINES)) {
        checker.addClients(chunk)
        yield chunk
      }
    }
    const chunks = mapClientChunks(checked(), read, { rtoCode: SET.rtoCode, codes })
    let count = 0
    let largest: Stage | undefined
    for (;;) {
      const next = chunks.next()
      if (next.done) break
      kept.add(next.value.records)
      const after = measure(`the largest after a chunk mapped and kept`)
      if (!largest || after.heap + after.external > largest.heap + largest.external) largest = after
      if (++count === 1) stages.push(measure('the first chunk mapped and kept'))
    }
    if (largest) stages.push(largest)
    const findings = checker.findings()
    stages.push(
      measure(
        `every chunk (${count}) mapped and kept (${(kept.bytes / MB).toFixed(1)} MB compressed), ${findings.length} check findings`,
      ),
    )
    return { stages, peak: peakRssMb() }
  }
  const read = await readNatZip(zipPath)
  stages.push(measure('readNatZip'))
  const held: unknown[] = []
  if (mode === 'whole') {
    const mapped = natToResources(read, { rtoCode: SET.rtoCode, codes })
    stages.push(measure('natToResources'))
    const origins = originIndexOf(mapped.records)
    const terms = natTermsOf(mapped.records)
    const bodies = new Map(mapped.records.map((record) => [record.uid.toLowerCase(), record.record]))
    held.push(read, mapped, origins, terms, bodies)
    stages.push(measure('the findings indexes'))
  } else {
    const kept = new CompressedRecords()
    const chunks = natToResourceChunks(read, { rtoCode: SET.rtoCode, codes })
    let count = 0
    for (;;) {
      const next = chunks.next()
      if (next.done) break
      kept.add(next.value.records)
      if (++count === 1) stages.push(measure('the first chunk mapped and kept'))
    }
    held.push(read, kept)
    stages.push(measure(`every chunk (${count}) mapped and kept (${(kept.bytes / MB).toFixed(1)} MB compressed)`))
  }
  return { stages, peak: peakRssMb() }
}

const script = fileURLToPath(import.meta.url)
if (process.argv[2]) {
  const result = await measureIn(process.argv[2] as Mode, process.argv[3]!)
  process.send?.(result)
  process.disconnect?.()
} else {
  const activities = positiveInteger('NAT_BENCH_ACTIVITIES', 100_000, 1_000_000)
  const generated = generateNatFileSet({
    activities,
    seed: SET.seed,
    rtoCode: SET.rtoCode,
    year: SET.year,
    asOf: SET.asOf,
    referenceData: await readSeedReferenceData(),
  })
  const zipPath = join(tmpdir(), `vetrs-bench-nat-memory-${process.pid}.zip`)
  await writeFile(zipPath, natZipBytes(generated.entries))
  try {
    const modes = (process.env.NAT_MEMORY_MODES || 'whole,chunks').split(',') as Mode[]
    // NAT_MEMORY_NODE_OPTIONS: V8 flags for the measuring processes (--max-semi-space-size=..., say).
    const flags = (process.env.NAT_MEMORY_NODE_OPTIONS || '').split(' ').filter((flag) => flag)
    for (const mode of modes) {
      const result = await new Promise<{ stages: Stage[]; peak: number | undefined }>((resolve, reject) => {
        const child = fork(script, [mode, zipPath], { execArgv: ['--expose-gc', ...flags] })
        child.once('message', (message) => resolve(message as never))
        child.once('exit', (code) => code !== 0 && reject(new Error(`${mode}: exit ${code}`)))
      })
      console.log(
        `\n${mode} (${activities} activities${flags.length ? `, ${flags.join(' ')}` : ''}): peak RSS ${result.peak?.toFixed(0) ?? '-'} MB`,
      )
      console.log(
        table(
          [
            ['After', 'RSS MB', 'V8 heap MB', 'Heap used MB', 'External MB'],
            ...result.stages.map((stage) => [
              stage.stage,
              stage.rss.toFixed(0),
              stage.heapTotal.toFixed(0),
              stage.heap.toFixed(0),
              stage.external.toFixed(0),
            ]),
          ],
          1,
        ),
      )
    }
  } finally {
    await rm(zipPath, { force: true })
  }
}
