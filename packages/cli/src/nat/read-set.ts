// A NAT file set from the command line: a folder of NAT files or a zip of them, told apart by what the
// path is, so the user never says which. Read one file at a time, the client files' lines kept as
// positions to be read again chunk by chunk (indexNatZip, indexNatFolder: the import's memory bounded
// by a chunk, not by the set; issue 31 item 9).
import { stat } from 'node:fs/promises'
import { indexNatFolder, indexNatZip, type NatIndexedSet, NatUndecodableError } from '@vetrs/avetmiss'
import { UsageError } from '@vetrs/client'

export async function readNatSet(path: string): Promise<NatIndexedSet> {
  const info = await stat(path).catch(() => {
    throw new UsageError(`no such file or folder: ${path}`)
  })
  try {
    return info.isDirectory() ? await indexNatFolder(path) : await indexNatZip(path)
  } catch (error) {
    // A NUL byte or UTF-16 text: the file and line, and what to export instead.
    if (error instanceof NatUndecodableError) throw new UsageError(`${path}: ${error.message}`)
    throw new UsageError(`${path} is neither a folder nor a readable zip of NAT files: ${(error as Error).message}`)
  }
}
