// The published minimal unit record (examples/minimal-unit-record), as tests use it.
import { readFile } from 'node:fs/promises'

export const EXAMPLE_DIR = new URL('../../examples/minimal-unit-record/', import.meta.url)

export async function loadExample(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(new URL(`${name}.json`, EXAMPLE_DIR), 'utf8')) as Record<string, unknown>
}
