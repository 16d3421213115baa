// Which NAT file a file name is: NAT00120.txt, nat00120.TXT and NAT00120 are all NAT00120.
import { NAT_LAYOUTS, type NatFileId } from './layouts/index.ts'

const NAT_FILE_NAME = /^(nat\d{5}a?)(\.txt)?$/i

/** The file identifier of a name (its last path segment), or undefined for any other file. */
export function natFileIdOf(name: string): NatFileId | undefined {
  const baseName = name.split(/[/\\]/).at(-1) ?? ''
  const match = NAT_FILE_NAME.exec(baseName)
  if (!match) return undefined
  const fileId = match[1]!.toUpperCase()
  return Object.hasOwn(NAT_LAYOUTS, fileId) ? (fileId as NatFileId) : undefined
}

/** The name the writer gives a file. */
export function natFileName(fileId: NatFileId): string {
  return `${fileId}.txt`
}
