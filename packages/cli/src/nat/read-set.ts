// A NAT file set from the command line: a folder of NAT files or a zip of them, told apart by what the
// path is, so the user never says which.
import { stat } from 'node:fs/promises'
import { readNatFolder, readNatZip, type NatReadResult } from '@vetrs/avetmiss'
import { UsageError } from '@vetrs/client'

export async function readNatSet(path: string): Promise<NatReadResult> {
  const info = await stat(path).catch(() => {
    throw new UsageError(`no such file or folder: ${path}`)
  })
  if (info.isDirectory()) return readNatFolder(path)
  try {
    return await readNatZip(path)
  } catch (error) {
    throw new UsageError(`${path} is neither a folder nor a readable zip of NAT files: ${(error as Error).message}`)
  }
}
