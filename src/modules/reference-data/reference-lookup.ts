// The datasets in force, held in memory for business rules: a rule checks a code without a query.
// refresh() is called once per validation run; it reloads only datasets that changed since.
import type { Db } from '../../platform/db/database.ts'
import * as repo from './reference-data.repo.ts'

export interface ReferenceLookup {
  /** Reloads datasets changed since the last refresh (one small query when nothing changed). */
  refresh(): Promise<void>
  /**
   * Whether the code counts on the date: a record in force on it (its business dates hold the date),
   * whatever its status now, since a release end-dates a code rather than deleting it and what was
   * valid then stays valid. An Inactive record with no end date says nothing of when it stopped, so
   * it never counts. With no date: an Active record.
   */
  isValid(dataset: string, code: string, onDate?: string): boolean
}

export function createReferenceLookup(db: Db): ReferenceLookup {
  const loadedAt = new Map<string, string>()
  const records = new Map<string, Map<string, repo.CurrentRecord>>()
  return {
    async refresh() {
      for (const [dataset, latest] of await repo.latestChanges(db)) {
        if (loadedAt.get(dataset) === latest) continue
        records.set(dataset, new Map((await repo.currentRecords(db, dataset)).map((record) => [record.code, record])))
        loadedAt.set(dataset, latest)
      }
    },
    isValid(dataset, code, onDate) {
      const record = records.get(dataset)?.get(code)
      if (record === undefined) return false
      if (onDate === undefined) return record.status === 'Active'
      if (record.status !== 'Active' && !record.businessEffectiveTo) return false
      return (
        (!record.businessEffectiveFrom || record.businessEffectiveFrom <= onDate) &&
        (!record.businessEffectiveTo || onDate <= record.businessEffectiveTo)
      )
    },
  }
}
