// NAT00010, the training organisation, which no resource of the service holds: an export writes it
// only from details the user gives, either the NAT00010 file their SMS already writes (the one they
// imported) or a JSON object of its fields by name (trainingOrganisationName, postcode, ...).
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { NAT_LAYOUTS, readNatText, type NatValues } from '@vetrs/avetmiss'
import { UsageError } from '@vetrs/client'

export type Organisation = NatValues<'NAT00010'>

export async function readOrganisation(path: string): Promise<Organisation> {
  const text = await readFile(path, 'latin1').catch((error: Error) => {
    throw new UsageError(`cannot read the training organisation details ${path}: ${error.message}`)
  })
  return text.trimStart().startsWith('{') ? fromJson(path, text) : fromNat(path, text)
}

function fromJson(path: string, text: string): Organisation {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${path}: not JSON (${(error as Error).message})`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${path}: expected a JSON object of NAT00010 fields`)
  const names = new Set<string>(NAT_LAYOUTS.NAT00010.fields.map((field) => field.name))
  const unknown = Object.keys(parsed).filter((key) => !names.has(key))
  if (unknown.length > 0)
    throw new UsageError(`${path}: ${unknown.join(', ')} not NAT00010 fields (${[...names].join(', ')})`)
  const values = Object.entries(parsed)
  const notText = values.filter(([, value]) => typeof value !== 'string').map(([key]) => key)
  if (notText.length > 0) throw new UsageError(`${path}: ${notText.join(', ')} must be strings`)
  return Object.fromEntries(values) as Organisation
}

function fromNat(path: string, text: string): Organisation {
  const read = readNatText('NAT00010', basename(path), text)
  const problem = read.problems[0]
  if (problem)
    throw new UsageError(`${path} line ${problem.line}${problem.field ? ` ${problem.field}` : ''}: ${problem.message}`)
  const record = read.records[0]
  if (!record) throw new UsageError(`${path}: no NAT00010 record`)
  return record.values
}
