// Loading releases of reference datasets (as a diff against what is held) and synchronising them
// out by watermark (spec: Reference data synchronisation).
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Db, ReadDb } from '../../platform/db/database.ts'
import { NotFoundError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { datasets, type DatasetDefinition } from './datasets.ts'
import { parseReleaseFile, type ReleaseRecord } from './release-file.ts'
import * as repo from './reference-data.repo.ts'
import type { SyncPageCache } from './sync-page-cache.ts'

export interface LoadSummary {
  dataset: string
  created: number
  updated: number
  endDated: number
  unchanged: number
  sysEffectiveFrom: string | null
}

export function findDataset(name: string, kind?: DatasetDefinition['kind']): DatasetDefinition | undefined {
  return (datasets as readonly DatasetDefinition[]).find(
    (dataset) => dataset.name === name && (kind === undefined || dataset.kind === kind),
  )
}

const sameContent = (held: repo.CurrentRecord, release: ReleaseRecord) =>
  held.description === release.description &&
  held.avetmissCode === release.avetmissCode &&
  held.businessEffectiveFrom === release.businessEffectiveFrom &&
  held.businessEffectiveTo === release.businessEffectiveTo

/**
 * Applies a release: new codes are created, changed ones updated, codes missing from the release
 * end-dated (made Inactive, never deleted), unchanged ones left alone. Idempotent: the same release
 * twice changes nothing the second time.
 */
export async function loadRelease(
  db: Db,
  dataset: string,
  release: ReleaseRecord[],
  options: { today?: string; onlyIfEmpty?: boolean } = {},
): Promise<LoadSummary> {
  const today = options.today ?? new Date().toISOString().slice(0, 10)
  return db.transaction().execute(async (tx) => {
    const stamp = await repo.lockForWriting(tx)
    const summary: LoadSummary = { dataset, created: 0, updated: 0, endDated: 0, unchanged: 0, sysEffectiveFrom: null }
    if (options.onlyIfEmpty && (await repo.hasRecords(tx, dataset))) return summary
    const held = new Map((await repo.currentRecords(tx, dataset)).map((record) => [record.code, record]))
    const versions: repo.CurrentRecord[] = []
    for (const record of release) {
      const current = held.get(record.code)
      held.delete(record.code)
      if (!current) {
        versions.push({ ...record, recordId: randomUUID(), status: 'Active' })
        summary.created++
      } else if (current.status === 'Inactive' || !sameContent(current, record)) {
        versions.push({ ...record, recordId: current.recordId, status: 'Active' })
        summary.updated++
      } else {
        summary.unchanged++
      }
    }
    for (const missing of held.values()) {
      if (missing.status === 'Inactive') continue // already end-dated by an earlier release
      const endDate =
        missing.businessEffectiveTo && missing.businessEffectiveTo < today ? missing.businessEffectiveTo : today
      versions.push({ ...missing, status: 'Inactive', businessEffectiveTo: endDate })
      summary.endDated++
    }
    if (versions.length > 0) {
      await repo.addVersions(tx, dataset, stamp, versions)
      summary.sysEffectiveFrom = stamp
    }
    return summary
  })
}

export async function loadReleaseFile(db: Db, dataset: string, path: string): Promise<LoadSummary> {
  if (!findDataset(dataset))
    throw new Error(`unknown dataset ${dataset}; known: ${datasets.map((d) => d.name).join(', ')}`)
  return loadRelease(db, dataset, parseReleaseFile(await readFile(path, 'utf8'), path))
}

/** The seed release of a dataset, as shipped in seed/. */
async function seedReleaseOf(dataset: DatasetDefinition): Promise<ReleaseRecord[]> {
  const file = new URL(`./seed/${dataset.seedFile}`, import.meta.url)
  return parseReleaseFile(await readFile(file, 'utf8'), dataset.seedFile)
}

/** At first start, every dataset that holds nothing yet gets its seed release, through the same loader. */
export async function seedReferenceData(db: Db): Promise<LoadSummary[]> {
  const summaries: LoadSummary[] = []
  for (const dataset of datasets as readonly DatasetDefinition[]) {
    if (await repo.hasRecords(db, dataset.name)) continue
    summaries.push(await loadRelease(db, dataset.name, await seedReleaseOf(dataset), { onlyIfEmpty: true }))
  }
  return summaries
}

/**
 * The shipped seed releases by dataset name, read from the seed files without a database: what a
 * service that has just started holds (every record Active). For tools that need the codes offline,
 * such as the NAT file generator of `npm run seed:synthetic -- nat`.
 */
export async function readSeedReferenceData(): Promise<Record<string, ReleaseRecord[]>> {
  const byName: Record<string, ReleaseRecord[]> = {}
  for (const dataset of datasets as readonly DatasetDefinition[]) byName[dataset.name] = await seedReleaseOf(dataset)
  return byName
}

/** A code of a dataset as it stands: its word (or a classification's code), AVETMISS code and status. */
export interface CurrentCode {
  code: string
  avetmissCode: string | null
  status: 'Active' | 'Inactive'
}

/**
 * The current version of every record of every dataset, by dataset name: what a full synchronisation
 * of each dataset ends with. For the NAT bridge's code translator, which translates through the
 * same data validation checks against (a few hundred records per dataset, read in one query each).
 */
export async function currentCodes(db: Db): Promise<Record<string, CurrentCode[]>> {
  const byName: Record<string, CurrentCode[]> = {}
  for (const dataset of datasets as readonly DatasetDefinition[]) {
    byName[dataset.name] = (await repo.currentRecords(db, dataset.name)).map(({ code, avetmissCode, status }) => ({
      code,
      avetmissCode,
      status,
    }))
  }
  return byName
}

/**
 * A page of the versions stamped at or after changedSince. Pages are read up to the dataset's last
 * position at the time of the request and cached under it: a page answered from the cache is exactly
 * what the database gives for that position, so the watermark contract is the same either way.
 */
export async function changesSince(
  db: ReadDb,
  cache: SyncPageCache,
  name: string,
  kind: DatasetDefinition['kind'],
  changedSince: string,
  page: PageQuery,
): Promise<Page<repo.SyncedRecord>> {
  if (!findDataset(name, kind))
    throw new NotFoundError(`No ${kind === 'reference' ? 'reference dataset' : 'classification'} ${name}.`)
  const key = {
    dataset: name,
    last: await repo.lastPosition(db, name),
    changedSince,
    pageNumber: page.pageNumber,
    pageSize: page.pageSize,
  }
  const cached = cache.get(key)
  if (cached) return cached
  const { total, records } = await repo.changesPage(db, name, changedSince, key.last, offsetOf(page), page.pageSize)
  const answer = toPage(records, total, page)
  cache.set(key, answer)
  return answer
}

/** A dataset as the console lists it: what it is, where it comes from, and how many records it holds now. */
export interface DatasetSummary {
  name: string
  kind: DatasetDefinition['kind']
  title: string
  source: string
  currentRecords: number
}

/** Every dataset the service serves, with its number of current records. */
export async function datasetSummaries(db: ReadDb): Promise<DatasetSummary[]> {
  const counts = await repo.currentRecordCounts(db)
  return (datasets as readonly DatasetDefinition[]).map(({ name, kind, title, source }) => ({
    name,
    kind,
    title,
    source,
    currentRecords: counts.get(name) ?? 0,
  }))
}

/** A page of a dataset's current records, in code order; 404 for a dataset the service does not serve. */
export async function currentRecordsOf(
  db: ReadDb,
  name: string,
  page: PageQuery,
): Promise<{ dataset: DatasetDefinition; records: Page<repo.CurrentRecord> }> {
  const dataset = findDataset(name)
  if (!dataset) throw new NotFoundError(`No reference dataset or classification ${name}.`)
  const { total, records } = await repo.currentRecordsPage(db, name, page.pageSize, offsetOf(page))
  return { dataset, records: toPage(records, total, page) }
}
