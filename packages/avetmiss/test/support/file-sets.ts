// A complete NAT file set built from the golden lines, as entries the reader takes.
import type { NatEntry, NatFileId } from '../../src/index.ts'
import { GOLDEN, lineOf } from './golden.ts'

export const encode = (text: string) => Buffer.from(text, 'latin1')

/** One entry per given file, each holding the given lines joined by `lineEnd` and ended by it. */
export function entries(files: Partial<Record<string, readonly string[]>>, lineEnd = '\r\n'): NatEntry[] {
  return Object.entries(files).map(([name, lines]) => ({
    name,
    bytes: encode((lines ?? []).map((line) => line + lineEnd).join('')),
  }))
}

/** The golden line of every required file, under its usual name: a set that reads without problems. */
export function completeSet(
  overrides: Partial<Record<string, readonly string[]>> = {},
): Partial<Record<string, readonly string[]>> {
  const files: Partial<Record<string, readonly string[]>> = {}
  const required: NatFileId[] = ['NAT00010', 'NAT00020', 'NAT00030', 'NAT00060', 'NAT00080', 'NAT00085', 'NAT00120']
  for (const fileId of required) files[`${fileId}.txt`] = [lineOf(GOLDEN[fileId])]
  return { ...files, ...overrides }
}
