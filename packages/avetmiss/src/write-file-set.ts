// A set of records to NAT files, in a folder or a zip.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { natFileName } from './file-names.ts'
import { formatNatFile, NatWriteError } from './format-file.ts'
import { NAT_FILE_IDS, type NatValues } from './layouts/index.ts'
import type { NatProblem } from './problems.ts'
import type { NatFileSet } from './records.ts'
import type { NatEntry } from './read-file-set.ts'

/**
 * The files of a set, named NAT000xx.txt, one byte a character (Latin-1) so that a column is a byte.
 * Only the files given are produced; an empty list gives an empty file. Every file is checked before
 * any is returned, and a NatWriteError lists every value that cannot be written.
 */
export function natFileEntries(fileSet: NatFileSet): NatEntry[] {
  const entries: NatEntry[] = []
  const problems: NatProblem[] = []
  for (const fileId of NAT_FILE_IDS) {
    const records = fileSet[fileId] as readonly NatValues<typeof fileId>[] | undefined
    if (!records) continue
    try {
      const text = formatNatFile(fileId, records)
      entries.push({ name: natFileName(fileId), bytes: Buffer.from(text, 'latin1') })
    } catch (error) {
      if (!(error instanceof NatWriteError)) throw error
      problems.push(...error.problems)
    }
  }
  if (problems.length > 0) throw new NatWriteError(problems)
  return entries
}

/**
 * What the writer takes: records by file identifier, formatted here, or files already formatted (the
 * entries of `natFileEntries`, or of `generateNatFileSet`, whose planted faults the formatter would refuse).
 */
export type NatFiles = NatFileSet | readonly NatEntry[]

const entriesOf = (files: NatFiles): readonly NatEntry[] =>
  Array.isArray(files) ? (files as readonly NatEntry[]) : natFileEntries(files as NatFileSet)

/** Writes the files of a set into a folder (created if need be); returns the paths written. */
export async function writeNatFolder(folder: string, files: NatFiles): Promise<string[]> {
  const entries = entriesOf(files)
  await mkdir(folder, { recursive: true })
  const paths: string[] = []
  for (const entry of entries) {
    const path = join(folder, entry.name)
    await writeFile(path, entry.bytes)
    paths.push(path)
  }
  return paths
}

/** The files of a set as the bytes of a zip, each file at the zip's top level. */
export function natZipBytes(files: NatFiles): Uint8Array {
  return zipSync(Object.fromEntries(entriesOf(files).map((entry) => [entry.name, entry.bytes])))
}

/** Writes the files of a set as a zip at `path`. */
export async function writeNatZip(path: string, files: NatFiles): Promise<void> {
  await writeFile(path, natZipBytes(files))
}
