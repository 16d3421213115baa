// The NAT file layouts of the AVETMISS 8.0 VET Provider Collection, one file each, gathered here
// with the types that name a file's fields.
import type { FileLayout } from '../layout.ts'
import { NAT00010 } from './nat00010.ts'
import { NAT00020 } from './nat00020.ts'
import { NAT00030 } from './nat00030.ts'
import { NAT00030A } from './nat00030a.ts'
import { NAT00060 } from './nat00060.ts'
import { NAT00080 } from './nat00080.ts'
import { NAT00085 } from './nat00085.ts'
import { NAT00090 } from './nat00090.ts'
import { NAT00100 } from './nat00100.ts'
import { NAT00120 } from './nat00120.ts'
import { NAT00130 } from './nat00130.ts'

/** Every layout this package reads and writes, by file identifier, in the order of the collection. */
export const NAT_LAYOUTS = {
  NAT00010,
  NAT00020,
  NAT00030,
  NAT00030A,
  NAT00060,
  NAT00080,
  NAT00085,
  NAT00090,
  NAT00100,
  NAT00120,
  NAT00130,
} as const satisfies { [FileId in string]: FileLayout<FileId> }

export type NatLayouts = typeof NAT_LAYOUTS
/** A NAT file identifier: 'NAT00010', ..., 'NAT00030A', ..., 'NAT00130'. */
export type NatFileId = keyof NatLayouts
export type NatFieldName<F extends NatFileId> = NatLayouts[F]['fields'][number]['name']
/** One record's values by field name: trimmed strings, a blank field absent. */
export type NatValues<F extends NatFileId> = { [Name in NatFieldName<F>]?: string }

export const NAT_FILE_IDS = Object.keys(NAT_LAYOUTS) as NatFileId[]

/** The layout of a file, seen through the general shape the reader and writer work with. */
export function layoutOf(fileId: NatFileId): FileLayout {
  return NAT_LAYOUTS[fileId]
}

/**
 * The files a set must have, each group by one of its members (a program file is NAT00030 or
 * NAT00030A). The others (disability, prior educational achievement, program completed) exist only
 * when there is something to report, so an absent one is an empty one.
 */
export const REQUIRED_FILE_GROUPS: readonly (readonly NatFileId[])[] = [
  ['NAT00010'],
  ['NAT00020'],
  ['NAT00030', 'NAT00030A'],
  ['NAT00060'],
  ['NAT00080'],
  ['NAT00085'],
  ['NAT00120'],
]
