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

// A 100 000-activity set maps to about 140 000 records, and most of them take the same fields from
// the same place (every subject enrolment takes activityStartDate from its own line's Activity start
// date). Sources are therefore shared objects, one per (line index, field), and so are whole field
// maps: records whose fields come from the same places share one frozen map. Both caches are bounded
// and hold only immutable values, so sharing them between calls is safe.
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

/** Shared field maps, found by walking their (path, source) pairs in the order they were recorded. */
interface FieldMapNode {
  readonly next: Map<string, Map<NatFieldSource, FieldMapNode>>
  map?: Readonly<Record<string, NatFieldSource>>
}
const sharedFieldMaps: FieldMapNode = { next: new Map() }
let sharedFieldMapCount = 0
const MAX_SHARED_FIELD_MAPS = 10_000

function fieldMapOf(
  paths: readonly string[],
  sources: readonly NatFieldSource[],
): Readonly<Record<string, NatFieldSource>> {
  let node: FieldMapNode | undefined = sharedFieldMaps
  for (let i = 0; i < paths.length && node; i++) node = node.next.get(paths[i]!)?.get(sources[i]!)
  if (node?.map) return node.map

  const fields: Record<string, NatFieldSource> = {}
  for (let i = 0; i < paths.length; i++) fields[paths[i]!] = sources[i]!
  Object.freeze(fields)
  if (sharedFieldMapCount >= MAX_SHARED_FIELD_MAPS) return fields
  let at: FieldMapNode = sharedFieldMaps
  for (let i = 0; i < paths.length; i++) {
    let bySource: Map<NatFieldSource, FieldMapNode> | undefined = at.next.get(paths[i]!)
    if (!bySource) {
      bySource = new Map()
      at.next.set(paths[i]!, bySource)
    }
    let child: FieldMapNode | undefined = bySource.get(sources[i]!)
    if (!child) {
      child = { next: new Map() }
      bySource.set(sources[i]!, child)
    }
    at = child
  }
  at.map = fields
  sharedFieldMapCount += 1
  return fields
}

/** Collects a record's origin while the record is built. */
export class OriginBuilder {
  readonly #lines: NatSourceLine[] = []
  // In the order recorded; a path recorded again takes its later source.
  readonly #paths: string[] = []
  readonly #sources: NatFieldSource[] = []

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
    this.#paths.push(path)
    this.#sources.push(sourceOf(this.line(source), natField))
  }

  build(): RecordOrigin {
    return { lines: this.#lines, fields: fieldMapOf(this.#paths, this.#sources) }
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

/**
 * The origin without the lines' values: each line as its file identifier, file name and number only,
 * and only the lines `locate` can name (the first, and those a field came from). What an importer keeps
 * of a record once it is uploaded: about 100 bytes, where the origin holds whole lines (every activity
 * of an offering, each with all its values).
 */
export function compactOrigin(origin: RecordOrigin): RecordOrigin {
  let last = 0
  for (const source of Object.values(origin.fields)) if (source.line > last) last = source.line
  const lines = origin.lines.slice(0, last + 1).map(compactLine)
  return { lines, fields: origin.fields }
}

const compactLines = new WeakMap<NatSourceLine, NatSourceLine>()

/** One frozen copy per line, shared by every record built from it. */
function compactLine(line: NatSourceLine): NatSourceLine {
  let compact = compactLines.get(line)
  if (!compact) {
    compact = Object.freeze({ fileId: line.fileId, file: line.file, line: line.line })
    compactLines.set(line, compact)
  }
  return compact
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
 * Where a field came from, only when the record has that very path (`uniqueStudentIdentifier`,
 * `deliveryMode.internal`): no fallback to an enclosing object or the record's line.
 */
export function locateExact(
  index: OriginIndex,
  resourceType: string,
  uid: string,
  path: string,
): NatLocation | undefined {
  const origin = index.get(indexKey(resourceType, uid))
  const source = origin?.fields[normalisePath(path)]
  if (!origin || !source) return undefined
  const { fileId, file, line } = origin.lines[source.line]!
  return { fileId, file, line, field: source.field, label: natFieldLabel(fileId, source.field) }
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
