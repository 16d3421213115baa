// Loading releases of reference datasets (as a diff against what is held) and synchronising them
// out by watermark (spec: Reference data synchronisation).
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Db, ReadDb } from '../../platform/db/database.ts'
import { NotFoundError, StructuralError } from '../../domain/errors.ts'
import { utcInstant } from '../../domain/calendar.ts'
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

/** How a code stands before and after a release: what the console's preview shows. */
export interface ReleaseChange {
  code: string
  before: ReleaseRecord & { status: 'Active' | 'Inactive' }
  after: ReleaseRecord & { status: 'Active' | 'Inactive' }
}

/** What a release would do to a dataset: codes created, updated and end-dated, and how many stay. */
export interface ReleaseDiff {
  created: ReleaseRecord[]
  updated: ReleaseChange[]
  endDated: ReleaseChange[]
  unchanged: number
}

const contentOf = (record: repo.CurrentRecord): ReleaseChange['before'] => ({
  code: record.code,
  description: record.description,
  avetmissCode: record.avetmissCode,
  businessEffectiveFrom: record.businessEffectiveFrom,
  businessEffectiveTo: record.businessEffectiveTo,
  status: record.status,
})

/**
 * The versions a release adds to what is held, and the same as a diff: new codes are created,
 * changed ones updated, codes missing from the release end-dated (made Inactive, never deleted),
 * unchanged ones left alone. Pure: the loader writes the versions, the preview shows the diff.
 */
function diffRelease(
  heldRecords: repo.CurrentRecord[],
  release: ReleaseRecord[],
  today: string,
): { versions: repo.CurrentRecord[]; diff: ReleaseDiff } {
  const held = new Map(heldRecords.map((record) => [record.code, record]))
  const versions: repo.CurrentRecord[] = []
  const diff: ReleaseDiff = { created: [], updated: [], endDated: [], unchanged: 0 }
  for (const record of release) {
    const current = held.get(record.code)
    held.delete(record.code)
    if (!current) {
      versions.push({ ...record, recordId: randomUUID(), status: 'Active' })
      diff.created.push(record)
    } else if (current.status === 'Inactive' || !sameContent(current, record)) {
      versions.push({ ...record, recordId: current.recordId, status: 'Active' })
      diff.updated.push({ code: record.code, before: contentOf(current), after: { ...record, status: 'Active' } })
    } else {
      diff.unchanged++
    }
  }
  for (const missing of held.values()) {
    if (missing.status === 'Inactive') continue // already end-dated by an earlier release
    const endDate =
      missing.businessEffectiveTo && missing.businessEffectiveTo < today ? missing.businessEffectiveTo : today
    const version = { ...missing, status: 'Inactive' as const, businessEffectiveTo: endDate }
    versions.push(version)
    diff.endDated.push({ code: missing.code, before: contentOf(missing), after: contentOf(version) })
  }
  return { versions, diff }
}

/**
 * Applies a release (see diffRelease). Idempotent: the same release twice changes nothing the second
 * time. With `basis`, the release is refused (ReleaseBasisChanged) when the dataset has changed since
 * that position was read, so what is published is what was previewed.
 */
export async function loadRelease(
  db: Db,
  dataset: string,
  release: ReleaseRecord[],
  options: { today?: string; onlyIfEmpty?: boolean; basis?: number } = {},
): Promise<LoadSummary> {
  const today = options.today ?? new Date().toISOString().slice(0, 10)
  return db.transaction().execute(async (tx) => {
    const stamp = await repo.lockForWriting(tx)
    const summary: LoadSummary = { dataset, created: 0, updated: 0, endDated: 0, unchanged: 0, sysEffectiveFrom: null }
    if (options.onlyIfEmpty && (await repo.hasRecords(tx, dataset))) return summary
    if (options.basis !== undefined && (await repo.lastPosition(tx, dataset)) !== options.basis)
      throw new ReleaseBasisChanged(dataset)
    const { versions, diff } = diffRelease(await repo.currentRecords(tx, dataset), release, today)
    Object.assign(summary, {
      created: diff.created.length,
      updated: diff.updated.length,
      endDated: diff.endDated.length,
      unchanged: diff.unchanged,
    })
    if (versions.length > 0) {
      await repo.addVersions(tx, dataset, stamp, versions)
      summary.sysEffectiveFrom = stamp
    }
    return summary
  })
}

/** A release previewed against one state of the dataset was about to be published over another. */
export class ReleaseBasisChanged extends Error {
  constructor(dataset: string) {
    super(`${dataset} has changed since this release was previewed; nothing was changed. Preview it again.`)
  }
}

/** The most a release file may hold (the largest shipped seed file is about 11 KB). */
export const RELEASE_FILE_MAX_BYTES = 1_048_576

/** What a release file would do to a dataset, read without writing, and the position it was read at. */
export async function previewRelease(
  db: Db,
  dataset: string,
  text: string,
  fileName: string,
  today = new Date().toISOString().slice(0, 10),
): Promise<{ dataset: DatasetDefinition; basis: number; diff: ReleaseDiff }> {
  const definition = findDataset(dataset)
  if (!definition) throw new NotFoundError(`No reference dataset ${dataset}.`)
  const release = parseReleaseFile(text, fileName)
  // One snapshot for both reads: the position and the records it was read with.
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx) => {
      const basis = await repo.lastPosition(tx, dataset)
      const { diff } = diffRelease(await repo.currentRecords(tx, dataset), release, today)
      return { dataset: definition, basis, diff }
    })
}

/** Publishes a previewed release file: refused (ReleaseBasisChanged) if the dataset moved since. */
export async function publishRelease(
  db: Db,
  dataset: string,
  text: string,
  fileName: string,
  basis: number,
): Promise<LoadSummary> {
  if (!findDataset(dataset)) throw new NotFoundError(`No reference dataset ${dataset}.`)
  return loadRelease(db, dataset, parseReleaseFile(text, fileName), { basis })
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
  // Every ISO 8601 spelling of the same instant (Z, +00:00, +0000, a fraction or none) becomes one
  // text before it reaches the SQL or the cache key. The request schema has checked it is one.
  const since = utcInstant(changedSince)
  if (since === undefined)
    throw new StructuralError([{ accessPath: 'query.changedSince', message: 'must be an ISO 8601 date-time in UTC' }])
  const key = {
    dataset: name,
    last: await repo.lastPosition(db, name),
    changedSince: since,
    pageNumber: page.pageNumber,
    pageSize: page.pageSize,
  }
  const cached = cache.get(key)
  if (cached) return cached
  const { total, records } = await repo.changesPage(db, name, since, key.last, offsetOf(page), page.pageSize)
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
