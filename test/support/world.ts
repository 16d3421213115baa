// A fresh, valid unit record for a test: the published minimal unit record with new UIDs (references
// kept consistent) and a student name of its own, so scenarios in one RTO never collide.
import { randomUUID } from 'node:crypto'
import { loadExample, segmentOfExample } from './examples.ts'
import type { Upload } from './reporting.ts'

type Body = Record<string, any>

export interface World {
  student: Body
  location: Body
  subject: Body
  subjectOffering: Body
  subjectEnrolment: Body
  program: Body
  programOffering: Body
  programEnrolment: Body
  subjectEnrolmentInProgram: Body
}

const FILES: Record<keyof World, string> = {
  student: 'student',
  location: 'deliverylocation',
  subject: 'subject',
  subjectOffering: 'subjectoffering',
  subjectEnrolment: 'subjectenrolment',
  program: 'program',
  programOffering: 'programoffering',
  programEnrolment: 'programenrolment',
  subjectEnrolmentInProgram: 'subjectenrolment-in-program',
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g
let counter = 0

/** A family name no other world in this process has (letters only, as names are). */
function uniqueName(): string {
  let n = ++counter + process.pid * 1000
  let name = ''
  do {
    name += String.fromCharCode(97 + (n % 26))
    n = Math.floor(n / 26)
  } while (n > 0)
  return `Test${name}`
}

/** The examples as one text, read once per process. */
let examples: Promise<string> | undefined
const examplesText = () => {
  const names = Object.keys(FILES) as (keyof World)[]
  examples ??= Promise.all(names.map(async (name) => [name, await loadExample(FILES[name])])).then((entries) =>
    JSON.stringify(Object.fromEntries(entries)),
  )
  return examples
}

export async function world(): Promise<World> {
  const text = await examplesText()
  const renamed = new Map<string, string>()
  const result = JSON.parse(
    text.replace(UUID, (uid) => {
      if (!renamed.has(uid)) renamed.set(uid, randomUUID())
      return renamed.get(uid)!
    }),
  ) as World
  result.student.familyName = uniqueName()
  return result
}

/** Uploads of the named records of a world, in the given order. */
export function uploadsOf(w: World, ...names: (keyof World)[]): Upload[] {
  return names.map((name) => ({ segment: segmentOf(name), body: w[name] }))
}

/** Every record of a world, in an order that needs no other. */
export function allOf(w: World): Upload[] {
  return uploadsOf(w, ...(Object.keys(FILES) as (keyof World)[]))
}

/** The same record, voided with a reason. */
export function voided(
  body: Body,
  reason: 'remove_duplicate_record' | 'remove_orphaned_record' = 'remove_orphaned_record',
): Body {
  return { ...body, isVoided: true, voidedReason: reason }
}

export const segmentOf = (name: keyof World): string => segmentOfExample(FILES[name])
export const uidOf = (body: Body): string => String(Object.entries(body).find(([key]) => key.endsWith('UID'))![1])
