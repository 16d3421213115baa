// Records from files: each argument a JSON file (one record, or an array of records) or a folder of
// them (every *.json inside, in name order). The kind of each record is told from its UID field.
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { kindOf, UsageError, type ResourceRecord } from '@vetrs/client'

export async function readRecords(paths: string[]): Promise<ResourceRecord[]> {
  const files: string[] = []
  for (const path of paths) {
    const info = await stat(path).catch(() => {
      throw new UsageError(`no such file or folder: ${path}`)
    })
    if (info.isDirectory())
      files.push(
        ...(await readdir(path))
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(path, name)),
      )
    else files.push(path)
  }
  if (files.length === 0) throw new UsageError(`no JSON files in ${paths.join(', ')}`)
  const records: ResourceRecord[] = []
  for (const file of files) {
    let parsed: unknown
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'))
    } catch (error) {
      throw new UsageError(`${file}: not JSON (${(error as Error).message})`)
    }
    for (const record of Array.isArray(parsed) ? parsed : [parsed]) {
      try {
        kindOf(record as object)
      } catch (error) {
        throw new UsageError(`${file}: ${(error as Error).message}`)
      }
      records.push(record as ResourceRecord)
    }
  }
  return records
}
