// The code translator of the NAT bridge, built from the reference data the service serves (through
// the SDK), not from seed files: the service's datasets are the one source of AVETMISS codes, and an
// operator's new release of them changes the mapping without a new CLI.
import { codeTranslatorFrom, type CodeTranslator, type ReferenceDataRecord } from '@vetrs/avetmiss'
import { eachBounded, FULL_LOAD, type ReferenceRecord, type Vetrs } from '@vetrs/client'

/** The datasets the mapping translates through, by the names the mapping and the service use. */
export const NAT_DATASETS = [
  'state',
  'gender',
  'indigenous-status',
  'highest-school-level',
  'labour-force-status',
  'survey-availability',
  'disability-type',
  'prior-educational-achievement',
  'prior-educational-achievement-recognition',
  'program-recognition',
  'program-level-of-education',
  'commencing-program',
  'outcome-national',
  'study-reason',
  'school-type',
  'funding-source-national',
  'predominant-delivery-mode',
  'country',
  'language',
] as const

/** Country and language are classifications, which the SDK reads as `classification/<name>`. */
const CLASSIFICATIONS: ReadonlySet<string> = new Set(['country', 'language'])

/**
 * Reads every dataset from the start (a full load) and keeps the current version of each record: a
 * full load also returns superseded versions, oldest first, so the last one seen of a recordId is
 * the one in force. Datasets are read two at a time: a few small requests each.
 */
export async function codeTranslatorFromService(
  client: Vetrs,
  onDataset?: (done: number, total: number) => void,
): Promise<CodeTranslator> {
  const datasets: Record<string, ReferenceDataRecord[]> = {}
  let done = 0
  await eachBounded(NAT_DATASETS, 2, async (name) => {
    datasets[name] = await currentRecords(client, CLASSIFICATIONS.has(name) ? `classification/${name}` : name)
    onDataset?.(++done, NAT_DATASETS.length)
  })
  return codeTranslatorFrom(datasets)
}

async function currentRecords(client: Vetrs, dataset: string): Promise<ReferenceDataRecord[]> {
  const current = new Map<string, ReferenceRecord>()
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await client.referencePage(dataset, FULL_LOAD, pageNumber)
    for (const record of page.results) current.set(record.recordId, record)
    if (page.results.length === 0 || pageNumber >= page.numberOfPages) break
  }
  return [...current.values()].map(({ code, avetmissCode, status }) => ({ code, avetmissCode, status }))
}
