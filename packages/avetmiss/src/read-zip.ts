// A zip of NAT files to records.
import { readFile } from 'node:fs/promises'
import { unzipSync } from 'fflate'
import { type NatEntry, type NatReadOptions, type NatReadResult, readNatEntries } from './read-file-set.ts'

/**
 * Reads the NAT files of a zip, given as its path or its bytes. Files are recognised by their name
 * wherever they sit in the zip (a folder inside it is fine); folders and other files are ignored.
 */
export async function readNatZip(zip: string | Uint8Array, options: NatReadOptions = {}): Promise<NatReadResult> {
  const bytes = typeof zip === 'string' ? await readFile(zip) : zip
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes)
  } catch (error) {
    throw new Error(`Not a zip that can be read: ${(error as Error).message}`, { cause: error })
  }
  const entries: NatEntry[] = Object.entries(files)
    .filter(([name]) => !name.endsWith('/'))
    .map(([name, content]) => ({ name, bytes: content }))
  return readNatEntries(entries, options)
}
