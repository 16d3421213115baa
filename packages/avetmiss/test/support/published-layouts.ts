// The hand-built NAT files of test/fixtures/published-layouts (each written field by field to a
// published layout: see the README there), read as a set: the national 8.0 set with a case's files in
// place of the national ones of the same name.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type NatEntry,
  type NatReadResult,
  natToResources,
  type NatToResourcesResult,
  readNatEntries,
} from '../../src/index.ts'
import { seedCodes } from './reference-data.ts'

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'published-layouts')

function entriesOf(folder: string): NatEntry[] {
  return readdirSync(join(FIXTURES, folder))
    .sort()
    .map((name) => ({ name, bytes: readFileSync(join(FIXTURES, folder, name)) }))
}

/** The case's files over the national set; `only` reads the case's files alone. */
export function readCase(name: string, options: { only?: boolean } = {}): NatReadResult {
  const own = entriesOf(name)
  const base = options.only ? [] : entriesOf('national').filter((entry) => !own.some((o) => o.name === entry.name))
  return readNatEntries([...base, ...own])
}

export function mapCase(read: NatReadResult): NatToResourcesResult {
  return natToResources(read, { rtoCode: '90001', codes: seedCodes })
}

/** What a case is compared on: how each file was read, every problem, and the programs' values (as JSON holds them). */
export function summaryOf(read: NatReadResult, mapped: NatToResourcesResult): unknown {
  return JSON.parse(JSON.stringify(summaryFields(read, mapped)))
}

function summaryFields(read: NatReadResult, mapped: NatToResourcesResult) {
  return {
    files: read.files.map(({ file, layout }) => ({ file, layout })),
    readProblems: read.problems.map(({ file, line, field, value, message }) => ({ file, line, field, value, message })),
    mappingProblems: mapped.problems.map(({ file, line, field, value, message }) => ({
      file,
      line,
      field,
      value,
      message,
    })),
    programs: mapped.records.filter((record) => record.resourceType === 'Program').map((record) => record.record),
    records: mapped.records.length,
  }
}
