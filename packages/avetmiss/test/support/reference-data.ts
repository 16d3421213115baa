// The service's shipped reference data, read as data from its seed files (the records the
// reference-data endpoints serve), and a translator built from it.
import { readdirSync, readFileSync } from 'node:fs'
import { type CodeTranslator, codeTranslatorFrom, type ReferenceDataRecord } from '../../src/index.ts'

const SEED = new URL('../../../../src/modules/reference-data/seed/', import.meta.url)

/** A seed file's records: `#` comments, a header naming the columns, then tab-separated rows. */
function readSeed(text: string): ReferenceDataRecord[] {
  const [header, ...rows] = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))
  const columns = header!.split('\t')
  return rows.map((row) => {
    const cells = row.split('\t')
    const cell = (name: string) => cells[columns.indexOf(name)] || null
    return { code: cell('code')!, avetmissCode: cell('avetmissCode'), status: 'Active' }
  })
}

/** Every seeded dataset by name (the file name without .tsv). */
export const seedDatasets: Record<string, ReferenceDataRecord[]> = Object.fromEntries(
  readdirSync(SEED)
    .filter((name) => name.endsWith('.tsv'))
    .map((name) => [name.slice(0, -4), readSeed(readFileSync(new URL(name, SEED), 'utf8'))]),
)

export const seedCodes: CodeTranslator = codeTranslatorFrom(seedDatasets)
