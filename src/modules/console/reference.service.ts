// Reference data: the datasets and classifications the service serves, and a page of one's records.
import type { ReadDb } from '../../platform/db/database.ts'
import type { Page } from '../../domain/page.ts'
import { currentRecordsOf, datasetSummaries, type CurrentRecord, type DatasetSummary } from '../reference-data/index.ts'

export const REFERENCE_PAGE_SIZE = 50

/** Every reference dataset and classification the service serves, with its number of current records. */
export function referenceDatasets(readDb: ReadDb): Promise<DatasetSummary[]> {
  return datasetSummaries(readDb)
}

/** A page of a dataset's current records in code order (what a full synchronisation ends with). */
export function referenceRecords(
  readDb: ReadDb,
  name: string,
  pageNumber: number,
): Promise<{ dataset: { name: string; title: string; kind: string; source: string }; records: Page<CurrentRecord> }> {
  return currentRecordsOf(readDb, name, { pageNumber, pageSize: REFERENCE_PAGE_SIZE })
}
