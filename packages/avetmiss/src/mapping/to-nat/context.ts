// What every part of the resources-to-NAT mapping shares: the RTO, the code translator, the records
// by type and UID (an enrolment's line needs its student's client identifier, its subject's
// identifier...), and the problems found, each at the resource and field it is about.
import { NAT_LAYOUTS, type NatFieldName, type NatFileId } from '../../layouts/index.ts'
import type { CodeTranslator } from '../code-translator.ts'
import {
  RESOURCE_TYPES,
  type ResourceEntry,
  type ResourceRecords,
  type ResourceType,
  uidOf,
} from '../resource-records.ts'

/** Something about a resource that could not be written to NAT as it is. */
export interface ResourceProblem {
  resourceType: ResourceType
  resourceUID: string
  /** The API field path (`locations[1].deliveryLocationUID`), absent when the whole record is at fault. */
  field?: string
  value?: string
  message: string
}

export type RecordsByUid = { [T in ResourceType]: Map<string, ResourceRecords[T]> }

export class ExportContext {
  readonly rtoCode: string
  readonly codes: CodeTranslator
  readonly byUid: RecordsByUid
  readonly problems: ResourceProblem[] = []

  constructor(rtoCode: string, codes: CodeTranslator, entries: readonly ResourceEntry[]) {
    this.rtoCode = rtoCode
    this.codes = codes
    this.byUid = Object.fromEntries(RESOURCE_TYPES.map((type) => [type, new Map()])) as unknown as RecordsByUid
    // A voided record is not part of what is reported, and NAT has no way to say it was withdrawn.
    for (const entry of entries) {
      if (entry.record.isVoided) continue
      ;(this.byUid[entry.resourceType] as Map<string, unknown>).set(uidOf(entry).toLowerCase(), entry.record)
    }
  }

  record<T extends ResourceType>(resourceType: T, uid: string | undefined): ResourceRecords[T] | undefined {
    return uid === undefined ? undefined : this.byUid[resourceType].get(uid.toLowerCase())
  }

  problem(resourceType: ResourceType, resourceUID: string, field: string | undefined, message: string, value?: string) {
    const problem: ResourceProblem = { resourceType, resourceUID, message }
    if (field !== undefined) problem.field = field
    if (value !== undefined) problem.value = value
    this.problems.push(problem)
  }

  /**
   * The AVETMISS code of an API word through the reference data; undefined for an absent word, and
   * undefined with a problem for a word the dataset does not translate (a word of the new standard
   * that AVETMISS 8.0 has no code for, say).
   */
  code(
    resourceType: ResourceType,
    resourceUID: string,
    field: string,
    dataset: string,
    word: string | undefined,
  ): string | undefined {
    if (word === undefined) return undefined
    const code = this.codes.toAvetmiss(dataset, word)
    if (code === undefined) {
      this.problem(
        resourceType,
        resourceUID,
        field,
        `${word} has no AVETMISS code in reference dataset ${dataset}; it is written as not stated or blank`,
        word,
      )
    }
    return code
  }
}

/** A NAT field filled with @, AVETMISS's "not stated": `@@` for a two-character field. */
export function notStated<F extends NatFileId>(fileId: F, field: NatFieldName<F>): string {
  const layout: readonly { name: string; length: number }[] = NAT_LAYOUTS[fileId].fields
  return '@'.repeat(layout.find((candidate) => candidate.name === field)!.length)
}

/** A boolean as an AVETMISS Y/N flag; absent stays absent. */
export function yesNo(value: boolean | undefined): string | undefined {
  return value === undefined ? undefined : value ? 'Y' : 'N'
}

/** A whole number as a numeric field's digits; the writer pads them with zeros. */
export function digits(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value)
}

/** Sorts NAT lines by the given key parts, so that the same records are always written the same way. */
export function sortedBy<T>(items: T[], keyOf: (item: T) => readonly (string | undefined)[]): T[] {
  const keyed = items.map((item) => ({ item, key: keyOf(item).map((part) => part ?? '') }))
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      if (a.key[i]! < b.key[i]!) return -1
      if (a.key[i]! > b.key[i]!) return 1
    }
    return 0
  })
  return keyed.map(({ item }) => item)
}
