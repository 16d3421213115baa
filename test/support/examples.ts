// The published minimal unit record (examples/minimal-unit-record), as tests use it.
import { readFile } from 'node:fs/promises'

export const EXAMPLE_DIR = new URL('../../examples/minimal-unit-record/', import.meta.url)

export async function loadExample(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(new URL(`${name}.json`, EXAMPLE_DIR), 'utf8')) as Record<string, unknown>
}

/** The minimal unit record's files, in an order in which each record needs only those before it. */
export const MINIMAL_UNIT_RECORD = [
  'student',
  'deliverylocation',
  'subject',
  'subjectoffering',
  'subjectenrolment',
  'program',
  'programoffering',
  'programenrolment',
  'subjectenrolment-in-program',
] as const

/** The path segment an example file is uploaded to (the subject enrolment in the program is a subject enrolment). */
export const segmentOfExample = (file: string): string => file.replace('-in-program', '')
