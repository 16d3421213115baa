// A folder of NAT files to records.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type NatEntry, type NatReadOptions, type NatReadResult, readNatEntries } from './read-file-set.ts'
import { indexNatEntries, type NatIndexedSet } from './read-indexed.ts'

/** Reads the NAT files directly inside a folder (not its subfolders); other files are listed as ignored. */
export async function readNatFolder(folder: string, options: NatReadOptions = {}): Promise<NatReadResult> {
  const entries: NatEntry[] = []
  for (const dirent of await readdir(folder, { withFileTypes: true })) {
    if (!dirent.isFile()) continue
    entries.push({ name: dirent.name, bytes: await readFile(join(folder, dirent.name)) })
  }
  return readNatEntries(entries, options)
}

/**
 * Reads the NAT files directly inside a folder as readNatFolder does, one file in memory at a time,
 * keeping the client files' lines as positions (indexNatEntries).
 */
export async function indexNatFolder(folder: string, options: NatReadOptions = {}): Promise<NatIndexedSet> {
  const names: string[] = []
  for (const dirent of await readdir(folder, { withFileTypes: true })) if (dirent.isFile()) names.push(dirent.name)
  return indexNatEntries(names, (name) => readFile(join(folder, name)), options)
}
