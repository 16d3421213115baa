// Where each mapped record and each of its fields came from in the NAT files, so that a validation
// result about (resourceType, resourceUID, accessPath) can be told as "NAT00120 line 17 field
// Activity start date": the file, line and field a user has to correct.
import { NAT_LAYOUTS, type NatFileId } from '../layouts/index.ts'
import type { ResourceType } from './resource-records.ts'

/** A line of a NAT file; a NatRecord is one, so the reader's records serve without a copy. */
export interface NatSourceLine {
  readonly fileId: NatFileId
  /** The file's name as found in the folder or zip. */
  readonly file: string
  /** 1-based. */
  readonly line: number
}

/** Where one API field came from: the record's `lines[line]`, field `field` of its layout. */
export interface NatFieldSource {
  readonly line: number
  readonly field: string
}

export interface RecordOrigin {
  /** The lines the record was built from, the one that defines it first. */
  readonly lines: readonly NatSourceLine[]
  /**
   * By API field path, as a validation result's accessPath without `$.`: `activityStartDate`,
   * `deliveryMode.internal`, `locations[0].deliveryLocationUID`, `disabilities[1]`.
   */
  readonly fields: Readonly<Record<string, NatFieldSource>>
}

/** A place in the NAT files: the line, and the field when one is known (`field` its name, `label` its published name). */
export interface NatLocation extends NatSourceLine {
  readonly field?: string
  readonly label?: string
}

// Most records take most fields from their first line: sharing one frozen source object per
// (line index, field) keeps the origins of a 100 000-activity set from costing an object per field.
const sharedSources: Map<string, NatFieldSource>[] = []

function sourceOf(line: number, field: string): NatFieldSource {
  let byField = sharedSources[line]
  if (!byField) {
    byField = new Map()
    sharedSources[line] = byField
  }
  let source = byField.get(field)
  if (!source) {
    source = Object.freeze({ line, field })
    byField.set(field, source)
  }
  return source
}

/** Collects a record's origin while the record is built. */
export class OriginBuilder {
  readonly #lines: NatSourceLine[] = []
  readonly #fields: Record<string, NatFieldSource> = {}

  constructor(first: NatSourceLine) {
    this.#lines.push(first)
  }

  /** Adds a line the record was built from (once). */
  line(source: NatSourceLine): number {
    const index = this.#lines.indexOf(source)
    if (index >= 0) return index
    this.#lines.push(source)
    return this.#lines.length - 1
  }

  /** Adds a line known not to be there yet, without looking (an offering of 10 000 activities). */
  append(source: NatSourceLine): void {
    this.#lines.push(source)
  }

  /** Records that the API field at `path` came from field `natField` of `source`. */
  field(path: string, source: NatSourceLine, natField: string): void {
    this.#fields[path] = sourceOf(this.line(source), natField)
  }

  build(): RecordOrigin {
    return { lines: this.#lines, fields: this.#fields }
  }
}

/** The published name of a field of a NAT file (`Activity start date`), or undefined for an unknown field. */
export function natFieldLabel(fileId: NatFileId, field: string): string | undefined {
  const fields: readonly { name: string; label: string }[] = NAT_LAYOUTS[fileId].fields
  return fields.find((candidate) => candidate.name === field)?.label
}

/** `NAT00120 line 17 field Activity start date`, or `NAT00120 line 17` without a field. */
export function formatNatLocation(location: NatLocation): string {
  const where = `${location.fileId} line ${location.line}`
  return location.field ? `${where} field ${location.label ?? location.field}` : where
}

/** The origins of mapped records, by resource type and UID. */
export type OriginIndex = ReadonlyMap<string, RecordOrigin>

const indexKey = (resourceType: string, uid: string) => `${resourceType} ${uid.toLowerCase()}`

/** Indexes the origins of mapped records for `locate`. */
export function originIndexOf(
  records: Iterable<{ resourceType: ResourceType; uid: string; origin: RecordOrigin }>,
): OriginIndex {
  const index = new Map<string, RecordOrigin>()
  for (const record of records) index.set(indexKey(record.resourceType, record.uid), record.origin)
  return index
}

/** `$.locations[0].deliveryLocationUID` and `locations[0].deliveryLocationUID` are the same path. */
function normalisePath(path: string): string {
  return path.replace(/^\$\.?/, '')
}

/** The path one level up: `a.b[2].c` -> `a.b[2]` -> `a.b` -> `a` -> ''. */
function parentPath(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['))
  return cut < 0 ? '' : path.slice(0, cut)
}

function sourceFor(fields: Readonly<Record<string, NatFieldSource>>, path: string): NatFieldSource | undefined {
  for (let current = path; current !== ''; current = parentPath(current)) {
    const exact = fields[current]
    if (exact) return exact
    // A whole object or array (`deliveryMode`, `disabilities`): where its first part came from.
    const prefix = Object.keys(fields).find((key) => key.startsWith(`${current}.`) || key.startsWith(`${current}[`))
    if (prefix) return fields[prefix]
  }
  return undefined
}

/**
 * Where a mapped record, or one of its fields, came from. `fieldName` may be an API field name, a
 * path (`deliveryMode.internal`) or a validation result's accessPath (`$.locations[0].deliveryLocationUID`).
 * A field the NAT files did not give (a derived offering's UID, say) falls back to the nearest
 * enclosing object's source, and then to the record's first line. Undefined for a record the index
 * does not hold.
 */
export function locate(
  index: OriginIndex,
  resourceType: string,
  uid: string,
  fieldName?: string,
): NatLocation | undefined {
  const origin = index.get(indexKey(resourceType, uid))
  if (!origin) return undefined
  const source = fieldName === undefined ? undefined : sourceFor(origin.fields, normalisePath(fieldName))
  if (!source) {
    const { fileId, file, line } = origin.lines[0]!
    return { fileId, file, line }
  }
  const { fileId, file, line } = origin.lines[source.line]!
  return { fileId, file, line, field: source.field, label: natFieldLabel(fileId, source.field) }
}
