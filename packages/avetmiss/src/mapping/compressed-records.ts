// Mapped records kept compressed, chunk by chunk: one gzip-compressed JSON array per chunk, of each
// record's type, UID, body, identity in the files' terms and compact origin. Records of a NAT set
// compress 30 to 40 times, so the 141,464 records of 100,000 activities are a few MB where their
// objects, origins and identities were about 280 MB of heap; and what an importer keeps between
// chunks is then a few large buffers, not a million small objects scattered over the heap among each
// chunk's garbage (bench/results.md, issue 31 item 9). A chunk is inflated again only when its records
// are asked for: in order, to be stored (a chunk at a time), or by UID, for the findings about them.
import { constants, gunzipSync, gzipSync } from 'node:zlib'
import type { NatFileId } from '../layouts/index.ts'
import type { MappedRecord } from './mapped-record.ts'
import { identityOf, type NatTerms } from './terms.ts'
import { compactOrigin, type NatFieldSource, type OriginIndex, type RecordOrigin } from './origin.ts'

/** A record as kept: its type, UID and body (what the upload takes). */
export interface CompressedRecord {
  resourceType: string
  uid: string
  record: unknown
}

/** A record as given to keep: with its origin and its identity in the files' terms, when known. */
export interface RecordToCompress extends CompressedRecord {
  origin?: RecordOrigin
}

type Row = [
  resourceType: string,
  uid: string,
  record: unknown,
  identity: string | null,
  origin: [lines: [NatFileId, string, number][], fields: Record<string, NatFieldSource>] | null,
]

/** What the findings about some records need: their origins, identities and bodies. */
export interface RecordIndexes {
  origins: OriginIndex
  terms: NatTerms
  /** By UID (lower case). */
  bodies: Map<string, unknown>
}

export class CompressedRecords {
  readonly #chunks: Uint8Array[] = []
  /**
   * Each record's chunk, by a 30-bit hash of its UID (lower case; UIDs of different types never meet:
   * the type is in the UID's own hash): a small integer key takes about a fifth of what the UID's
   * string and its entry took (141,464 records: about 20 MB of the worker's heap, held from the mapping
   * to the import's end). UIDs whose hashes meet share the key and list each chunk; a chunk read for
   * a UID it does not hold costs its inflation, never a wrong answer (the rows are matched by UID).
   */
  readonly #chunksOf = new Map<number, number | number[]>()
  #count = 0

  /** Records kept. */
  get count(): number {
    return this.#count
  }

  /** Chunks kept (`chunk` reads them by index, from 0). */
  get chunkCount(): number {
    return this.#chunks.length
  }

  /** Bytes the compressed chunks hold. */
  get bytes(): number {
    return this.#chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  }

  /** Keeps one chunk of records (none: nothing kept), a mapped record with its origin and identity. */
  add(records: readonly RecordToCompress[]): void {
    if (records.length === 0) return
    const index = this.#chunks.length
    const rows: Row[] = []
    for (const record of records) {
      this.#keep(uidHash(record.uid.toLowerCase()), index)
      const origin = record.origin ? compactOrigin(record.origin) : undefined
      rows.push([
        record.resourceType,
        record.uid,
        record.record,
        record.origin ? (identityOf(record as MappedRecord) ?? null) : null,
        origin ? [origin.lines.map((line) => [line.fileId, line.file, line.line]), { ...origin.fields }] : null,
      ])
    }
    this.#chunks.push(gzipSync(JSON.stringify(rows), { level: constants.Z_BEST_SPEED }))
    this.#count += records.length
  }

  #keep(key: number, index: number): void {
    const kept = this.#chunksOf.get(key)
    if (kept === undefined) this.#chunksOf.set(key, index)
    else if (typeof kept === 'number') {
      if (kept !== index) this.#chunksOf.set(key, [kept, index])
    } else if (kept.at(-1) !== index) kept.push(index)
  }

  #rows(index: number): Row[] | undefined {
    const bytes = this.#chunks[index]
    return bytes ? (JSON.parse(gunzipSync(bytes).toString('utf8')) as Row[]) : undefined
  }

  /** The records of one chunk, in the order kept; undefined past the last. */
  chunk(index: number): CompressedRecord[] | undefined {
    return this.#rows(index)?.map(([resourceType, uid, record]) => ({ resourceType, uid, record }))
  }

  /**
   * The origins, identities and bodies of the records with these UIDs (any case) that were kept,
   * each chunk holding one inflated once; UIDs not kept are left out.
   */
  indexesOf(uids: Iterable<string>): RecordIndexes {
    const wanted = new Map<number, Set<string>>()
    for (const uid of uids) {
      const key = uid.toLowerCase()
      const kept = this.#chunksOf.get(uidHash(key))
      if (kept === undefined) continue
      for (const index of typeof kept === 'number' ? [kept] : kept) {
        const keys = wanted.get(index) ?? new Set<string>()
        keys.add(key)
        wanted.set(index, keys)
      }
    }
    const origins = new Map<string, RecordOrigin>()
    const terms = new Map<string, string>()
    const bodies = new Map<string, unknown>()
    // In the order kept, so that a UID given again by a later chunk is answered as that chunk holds it.
    for (const [index, keys] of [...wanted].sort(([a], [b]) => a - b))
      for (const [resourceType, uid, record, identity, origin] of this.#rows(index)!) {
        const key = uid.toLowerCase()
        if (!keys.has(key)) continue
        bodies.set(key, record)
        if (identity !== null) terms.set(key, identity)
        if (origin)
          origins.set(`${resourceType} ${key}`, {
            lines: origin[0].map(([fileId, file, line]) => ({ fileId, file, line })),
            fields: origin[1],
          })
      }
    return { origins, terms, bodies }
  }
}

/** FNV-1a of a UID's characters, in 30 bits: a key V8 keeps as a small integer, with no object of its own. */
export function uidHash(uid: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < uid.length; i++) hash = Math.imul(hash ^ uid.charCodeAt(i), 0x01000193)
  return hash & 0x3fffffff
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi

/** Every UID a text names (a validation result's message names the records it is about). */
export function uidsIn(text: string): string[] {
  return text.match(UUID) ?? []
}
