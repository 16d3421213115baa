// Reference data synchronisation by the consumer rules (README, Synchronising reference data):
// start from the stored watermark (a full load the first time), fetch every page while the latest
// answer says there are more, upsert each page by recordId in the order received, and only after
// the last page store the largest sysEffectiveFrom seen. A run that fails leaves the watermark as it
// was, so repeating it misses nothing; changedSince is inclusive, so repeats are harmless upserts.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ReferenceRecord, VetrsOperations } from '../client.ts'
import type { RequestOptions } from '../request-options.ts'
import { requestOptionsOf, type OnProgress } from './progress.ts'

export const FULL_LOAD = '1901-01-01T00:00:00Z'

/** Where a consumer keeps its copy of a dataset and its watermark. */
export interface ReferenceStore {
  readWatermark(dataset: string): Promise<string | undefined>
  upsert(dataset: string, records: readonly ReferenceRecord[]): Promise<void>
  writeWatermark(dataset: string, watermark: string): Promise<void>
}

export interface SyncOutcome {
  dataset: string
  changedSince: string
  /** The watermark stored at the end (unchanged when nothing changed). */
  watermark: string
  pages: number
  records: number
}

export interface SyncOptions extends RequestOptions {
  onProgress?: OnProgress
}

export async function syncReferenceData(
  client: VetrsOperations,
  dataset: string,
  store: ReferenceStore,
  options: SyncOptions = {},
): Promise<SyncOutcome> {
  const requestOptions = requestOptionsOf(options)
  const changedSince = (await store.readWatermark(dataset)) ?? FULL_LOAD
  let largest = changedSince
  let pages = 0
  let records = 0
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await client.referencePage(dataset, changedSince, pageNumber, requestOptions)
    if (page.results.length === 0) break
    await store.upsert(dataset, page.results)
    pages++
    records += page.results.length
    for (const record of page.results)
      if (laterThan(record.sysEffectiveFrom, largest)) largest = record.sysEffectiveFrom
    options.onProgress?.({ phase: 'sync', dataset, pageNumber, numberOfPages: page.numberOfPages, records })
    if (pageNumber >= page.numberOfPages) break
  }
  if (largest !== changedSince) await store.writeWatermark(dataset, largest)
  return { dataset, changedSince, watermark: largest, pages, records }
}

/** sysEffectiveFrom carries microseconds, more than Date keeps: compare the normalised UTC strings. */
function laterThan(a: string, b: string): boolean {
  return normalise(a) > normalise(b)
}

function normalise(timestamp: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(timestamp)
  if (!match) return new Date(timestamp).toISOString().replace('Z', '000Z')
  return `${match[1]}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}Z`
}

/**
 * The default store: one directory, per dataset a JSON file of records keyed by recordId and a file
 * holding the watermark. Each file is replaced whole (written aside, then renamed), so a crash leaves
 * the old or the new file, never half of one.
 */
export class FileReferenceStore implements ReferenceStore {
  readonly directory: string
  constructor(directory: string) {
    this.directory = directory
  }

  #file(dataset: string, kind: 'records' | 'watermark'): string {
    return join(this.directory, `${dataset.replace(/[^a-z0-9-]+/gi, '_')}.${kind}.json`)
  }

  async readWatermark(dataset: string): Promise<string | undefined> {
    return (await this.#read<{ changedSince: string }>(this.#file(dataset, 'watermark')))?.changedSince
  }

  async writeWatermark(dataset: string, watermark: string): Promise<void> {
    await this.#write(this.#file(dataset, 'watermark'), { changedSince: watermark })
  }

  async upsert(dataset: string, records: readonly ReferenceRecord[]): Promise<void> {
    const held = await this.records(dataset)
    for (const record of records) held[record.recordId] = record
    await this.#write(this.#file(dataset, 'records'), held)
  }

  /** The dataset as held here, by recordId. */
  async records(dataset: string): Promise<Record<string, ReferenceRecord>> {
    return (await this.#read<Record<string, ReferenceRecord>>(this.#file(dataset, 'records'))) ?? {}
  }

  async #read<T>(file: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as T
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  async #write(file: string, value: unknown): Promise<void> {
    await mkdir(this.directory, { recursive: true })
    const aside = `${file}.${process.pid}.tmp`
    await writeFile(aside, `${JSON.stringify(value, null, 1)}\n`)
    await rename(aside, file)
  }
}
