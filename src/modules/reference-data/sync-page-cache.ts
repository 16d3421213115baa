// Synchronisation pages held in memory. Every SMS makes the same full load of the same datasets, and a
// dataset changes a few times a year, so the pages are worth keeping. A page is keyed by the dataset's
// last position when it was read (see lastPosition): once a release adds versions, the position moves,
// old keys are never asked for again and age out. Nothing needs invalidating, across processes either.
import { LRUCache } from 'lru-cache'
import type { Page } from '../../domain/page.ts'
import type { SyncedRecord } from './reference-data.repo.ts'

export interface SyncPageKey {
  dataset: string
  last: number
  changedSince: string
  pageNumber: number
  pageSize: number
}

export interface SyncPageCache {
  get(key: SyncPageKey): Page<SyncedRecord> | undefined
  set(key: SyncPageKey, page: Page<SyncedRecord>): void
}

/** Holds pages up to maxRecords records in all (an empty page counts as one), least recently used out first; 0 holds none. */
export function createSyncPageCache(maxRecords: number): SyncPageCache {
  if (maxRecords === 0) return { get: () => undefined, set: () => {} }
  const cache = new LRUCache<string, Page<SyncedRecord>>({
    maxSize: maxRecords,
    sizeCalculation: (page) => Math.max(page.results.length, 1),
  })
  const keyOf = (key: SyncPageKey) =>
    `${key.dataset}\u0000${key.last}\u0000${key.changedSince}\u0000${key.pageNumber}\u0000${key.pageSize}`
  return {
    get: (key) => cache.get(keyOf(key)),
    set: (key, page) => {
      cache.set(keyOf(key), page)
    },
  }
}
