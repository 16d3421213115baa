// A zip of NAT files to records.
import { readFile } from 'node:fs/promises'
import { crc32 } from 'node:zlib'
import { unzipSync } from 'fflate'
import { natFileIdOf } from './file-names.ts'
import { type NatEntry, type NatReadOptions, type NatReadResult, readNatEntries } from './read-file-set.ts'
import { indexNatEntries, type NatIndexedSet } from './read-indexed.ts'

export interface NatZipReadOptions extends NatReadOptions {
  /**
   * Most bytes the zip's NAT files may hold uncompressed, all together, as its directory states them
   * (default: no bound). A zip stating more is refused with a NatZipTooLargeError before any file is
   * inflated, and no file inflates to more than it states: a small zip cannot fill memory.
   */
  maxUncompressedBytes?: number
  /** Most entries (files and folders) the zip may list (default 10,000). */
  maxEntries?: number
}

/** A zip whose NAT files hold more than `maxUncompressedBytes`, or that lists more than `maxEntries` entries. */
export class NatZipTooLargeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NatZipTooLargeError'
  }
}

/**
 * A zip entry whose name no file may have: a control character (NUL included), or a path that climbs
 * out of the zip (`..`) or starts at a root (`/`, `\\`, `C:`). Such a zip is refused, whatever the entry is.
 */
export class NatZipEntryNameError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NatZipEntryNameError'
  }
}

const DEFAULT_MAX_ENTRIES = 10_000

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

/** Why an entry's name is refused, or undefined when it is a name a file can have. */
function unsafeEntryName(name: string): string | undefined {
  const shown = JSON.stringify(name)
  const control = CONTROL_CHARACTER.exec(name)
  if (control)
    return `The zip's entry ${shown} has a control character in its name (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}${control[0] === '\0' ? ', NUL' : ''})`
  if (name.split(/[/\\]/).includes('..'))
    return `The zip's entry ${shown} has ".." in its path: a name that climbs out of the zip`
  if (/^([/\\]|[A-Za-z]:)/.test(name)) return `The zip's entry ${shown} has an absolute path (from a root or a drive)`
  return undefined
}

const u16 = (bytes: Uint8Array, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8)
const u32 = (bytes: Uint8Array, at: number) => (u16(bytes, at) | (u16(bytes, at + 2) << 16)) >>> 0

/**
 * The CRC-32 of each entry the zip's central directory lists, in its order: the order in which
 * fflate offers the entries to its filter. Found the way fflate finds the directory (the end record
 * in the last 64 KiB, its zip64 locator when there is one); undefined where the directory is not
 * where it says, which fflate then refuses.
 */
function centralDirectoryCrcs(bytes: Uint8Array): (number | undefined)[] {
  let end = bytes.length - 22
  while (end > 0 && bytes.length - end <= 65_558 && u32(bytes, end) !== 0x06054b50) end--
  if (end < 0 || u32(bytes, end) !== 0x06054b50) return []
  let count = u16(bytes, end + 8)
  let at = u32(bytes, end + 16)
  if (end >= 20 && u32(bytes, end - 20) === 0x07064b50) {
    const zip64End = u32(bytes, end - 12)
    if (u32(bytes, zip64End) === 0x06064b50) {
      count = u32(bytes, zip64End + 32)
      at = u32(bytes, zip64End + 48)
    }
  }
  const crcs: (number | undefined)[] = []
  for (let i = 0; i < count && at + 46 <= bytes.length && u32(bytes, at) === 0x02014b50; i++) {
    crcs.push(u32(bytes, at + 16))
    at += 46 + u16(bytes, at + 28) + u16(bytes, at + 30) + u16(bytes, at + 32)
  }
  return crcs
}

/** An entry of the zip's directory that is not a folder, in the directory's order. */
interface ListedEntry {
  name: string
  /** A NAT file by its name; other files are listed and never inflated. */
  nat: boolean
  /** Its uncompressed size and CRC-32 as the directory states them (NAT files). */
  size: number
  crc: number | undefined
}

/**
 * Walks the zip's directory, inflating nothing, and refuses what no reading may get past: not a zip,
 * more entries than allowed, an unsafe entry name, NAT files stating more bytes than allowed. The one
 * walk readNatZip, indexNatZip and inspectNatZip share.
 */
function listEntries(bytes: Uint8Array, options: NatZipReadOptions): { entries: ListedEntry[]; statedBytes: number } {
  const maxBytes = options.maxUncompressedBytes ?? Number.POSITIVE_INFINITY
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  const crcs = centralDirectoryCrcs(bytes)
  const entries: ListedEntry[] = []
  let seen = 0
  let statedBytes = 0
  notAZip(() =>
    unzipSync(bytes, {
      filter: ({ name, originalSize }) => {
        const crc = crcs[seen]
        if (++seen > maxEntries) throw new NatZipTooLargeError(`The zip lists more than ${maxEntries} entries.`)
        const unsafe = unsafeEntryName(name)
        if (unsafe)
          throw new NatZipEntryNameError(
            `${unsafe}. Zip the NAT files again, at the top of the zip or in a folder of it, with their own names (NAT00010.txt ... NAT00130.txt)`,
          )
        if (name.endsWith('/')) return false
        const nat = natFileIdOf(name) !== undefined
        if (nat) {
          statedBytes += originalSize
          if (statedBytes > maxBytes)
            throw new NatZipTooLargeError(
              `The zip's NAT files hold more than ${maxBytes} bytes uncompressed (${name} brings them to ${statedBytes}).`,
            )
        }
        entries.push({ name, nat, size: originalSize, crc })
        return false
      },
    }),
  )
  return { entries, statedBytes }
}

/** Runs a read of the zip; what fflate throws becomes "Not a zip that can be read", our refusals stay. */
function notAZip<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof NatZipTooLargeError || error instanceof NatZipEntryNameError) throw error
    throw new Error(`Not a zip that can be read: ${(error as Error).message}`, { cause: error })
  }
}

/**
 * A NAT file as inflated, checked against what the directory states (the last entry of its name, as
 * fflate keeps the last): fflate inflates into a buffer of the stated size, so a file that stops short
 * comes out shorter, and one that runs past it is cut off at it, which its CRC-32 shows. Either is a
 * damaged zip.
 */
function checked(name: string, content: Uint8Array | undefined, stated: Map<string, ListedEntry>): Uint8Array {
  const { size, crc } = stated.get(name) ?? { size: -1, crc: undefined }
  if (content?.length !== size)
    throw new Error(
      `Not a zip that can be read: ${name} inflates to ${content?.length ?? 0} bytes, not the ${size} it states`,
    )
  if (crc === undefined || crc32(content) >>> 0 !== crc)
    throw new Error(`Not a zip that can be read: ${name} does not match its CRC-32 (the zip is damaged)`)
  return content
}

/** The NAT entries by name (the last of a repeated name, as fflate keeps the last when it inflates). */
const natEntriesByName = (entries: ListedEntry[]) =>
  new Map(entries.filter((entry) => entry.nat).map((entry) => [entry.name, entry]))

/**
 * Reads the NAT files of a zip, given as its path or its bytes. Files are recognised by their name
 * wherever they sit in the zip (a folder inside it is fine); folders are skipped, and other files are
 * listed as ignored without being inflated. A NAT file that does not inflate to the size and CRC-32
 * the zip states for it is damaged, and the zip is refused.
 */
export async function readNatZip(zip: string | Uint8Array, options: NatZipReadOptions = {}): Promise<NatReadResult> {
  const bytes = typeof zip === 'string' ? await readFile(zip) : zip
  const { entries } = listEntries(bytes, options)
  const stated = natEntriesByName(entries)
  const files = notAZip(() => unzipSync(bytes, { filter: ({ name }) => stated.has(name) }))
  const read: NatEntry[] = Object.entries(files).map(([name, content]) => ({
    name,
    bytes: checked(name, content, stated),
  }))
  const ignored: NatEntry[] = entries
    .filter((entry) => !entry.nat)
    .map(({ name }) => ({ name, bytes: new Uint8Array(0) })) // named, never read
  return readNatEntries([...read, ...ignored], options)
}

/**
 * Reads a zip's NAT files as readNatZip does, but one entry inflated at a time (each read and let go
 * before the next is inflated), keeping the client files' lines as positions (indexNatEntries). The
 * zip is refused for what readNatZip refuses; a damaged entry is found when it is inflated, so a
 * file read before it may already have been refused for its own content (a NUL byte, UTF-16).
 */
export async function indexNatZip(zip: string | Uint8Array, options: NatZipReadOptions = {}): Promise<NatIndexedSet> {
  const bytes = typeof zip === 'string' ? await readFile(zip) : zip
  const { entries } = listEntries(bytes, options)
  const stated = natEntriesByName(entries)
  // In the directory's order, a repeated NAT name once (at its first place); other files named, never read.
  const firstOfName = new Set<string>()
  const names = entries
    .filter((entry) => !entry.nat || (!firstOfName.has(entry.name) && firstOfName.add(entry.name)))
    .map((entry) => entry.name)
  const inflate = (wanted: string): Uint8Array =>
    checked(wanted, notAZip(() => unzipSync(bytes, { filter: ({ name }) => name === wanted }))[wanted], stated)
  return indexNatEntries(names, inflate, options)
}

/** What a zip's directory says, read without inflating anything. */
export interface NatZipDirectory {
  /** The entries that are NAT files, by their names in the zip. */
  natFiles: string[]
  /** Other files (folders left out). */
  ignoredFiles: string[]
  /** What the NAT files hold uncompressed, as the directory states it. */
  statedBytes: number
}

/**
 * Reads a zip's directory only, inflating nothing (milliseconds, whatever the zip holds): refuses what
 * readNatZip would refuse before inflating (not a zip, an unsafe entry name, more entries or NAT bytes
 * than allowed), so a caller can answer those at once and leave the reading for later.
 */
export function inspectNatZip(bytes: Uint8Array, options: NatZipReadOptions = {}): NatZipDirectory {
  const { entries, statedBytes } = listEntries(bytes, options)
  return {
    natFiles: entries.filter((entry) => entry.nat).map((entry) => entry.name),
    ignoredFiles: entries.filter((entry) => !entry.nat).map((entry) => entry.name),
    statedBytes,
  }
}
