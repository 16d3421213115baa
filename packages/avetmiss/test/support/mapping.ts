// Helpers for the mapping tests: the fixture mapped, records found by natural key, values by path.
import {
  type MappedRecord,
  type NatFileSet,
  type NatToResourcesResult,
  naturalKeysOf,
  natToResources,
  type ResourceRecords,
  type ResourceType,
} from '../../src/index.ts'
import { fixtureFileSet, RTO, readFileSet } from './nat-fixture.ts'
import { seedCodes } from './reference-data.ts'

export const keys = naturalKeysOf(RTO)

/** Reads a file set (the fixture unless given) and maps it with the seed's translator. */
export function mapFileSet(fileSet: NatFileSet = fixtureFileSet()): NatToResourcesResult {
  const read = readFileSet(fileSet)
  if (read.problems.length > 0) throw new Error(`the file set does not read: ${JSON.stringify(read.problems)}`)
  return natToResources(read, { rtoCode: RTO, codes: seedCodes })
}

export function recordOf(records: readonly MappedRecord[], resourceType: ResourceType, uid: string): MappedRecord {
  const found = records.find((record) => record.resourceType === resourceType && record.uid === uid)
  if (!found) throw new Error(`no ${resourceType} ${uid} among the mapped records`)
  return found
}

/** The body of a mapped record, typed by its resource type. */
export function bodyOf<T extends ResourceType>(
  records: readonly MappedRecord[],
  resourceType: T,
  uid: string,
): ResourceRecords[T] {
  return recordOf(records, resourceType, uid).record as ResourceRecords[T]
}

/** The value at an API path (`locations[0].deliveryLocationUID`, `disabilities[1]`). */
export function valueAt(body: unknown, path: string): unknown {
  let value: unknown = body
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** Copies of the records keyed by type and UID, for comparing two mappings whatever their order. */
export function byTypeAndUid(records: readonly MappedRecord[]): Map<string, unknown> {
  return new Map(records.map((record) => [`${record.resourceType} ${record.uid}`, record.record]))
}
