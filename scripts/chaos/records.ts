// The records a simulated SMS reports, made from the minimal unit record (examples/) with identities of
// their own: per RTO one delivery location, program, program offering, two subjects and their
// offerings (its catalogue), then students, each with a program enrolment and a subject enrolment in
// it. Everything is drawn from a seeded generator, so a seed gives the same records (and UIDs) again.
// Every record passes validation as made; `withBadUsi` makes one that is refused (BRTS01200), for the
// fix-and-resubmit workflow.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { ResourceRecord } from '../../packages/client/src/index.ts'

export type Body = Record<string, unknown>

/** mulberry32: a small, fast, seeded generator; good enough for schedules and identities. */
export class Random {
  #state: number
  constructor(seed: number) {
    this.#state = seed >>> 0
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let t = this.#state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** A whole number from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }
  /** A generator of its own, derived from this one (one per RTO, per fault kind...). */
  fork(): Random {
    return new Random(Math.floor(this.next() * 2 ** 32))
  }
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16))
    hex[12] = '4'
    hex[16] = '89ab'[Math.floor(this.next() * 4)]!
    const h = hex.join('')
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}

const USI_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'

/** A USI whose last character is its Luhn mod 32 check character (BRTS01200). */
export function validUsi(random: Random): string {
  const stem = Array.from({ length: 9 }, () => random.pick([...USI_ALPHABET])).join('')
  for (const check of USI_ALPHABET) if (usiChecks(stem + check)) return stem + check
  throw new Error('no check character') // never: one of the 32 always fits
}

function usiChecks(usi: string): boolean {
  let sum = 0
  let factor = 1
  for (let i = usi.length - 1; i >= 0; i--) {
    const addend = factor * USI_ALPHABET.indexOf(usi[i]!)
    sum += Math.floor(addend / 32) + (addend % 32)
    factor = factor === 1 ? 2 : 1
  }
  return sum % 32 === 0
}

const EXAMPLES = new URL('../../examples/minimal-unit-record/', import.meta.url)
const example = (name: string): Body => JSON.parse(readFileSync(new URL(`${name}.json`, EXAMPLES), 'utf8'))
const TEMPLATES = {
  location: example('deliverylocation'),
  program: example('program'),
  programOffering: example('programoffering'),
  subject: example('subject'),
  subjectOffering: example('subjectoffering'),
  student: example('student'),
  programEnrolment: example('programenrolment'),
  subjectEnrolment: example('subjectenrolment-in-program'),
}

/** The reporting period every record's activity falls in (the examples' October 2026). */
export const REPORTING_PERIOD = '202604'

export interface Catalogue {
  location: Body
  program: Body
  programOffering: Body
  subjects: Body[]
  subjectOfferings: Body[]
}

export function catalogue(random: Random): Catalogue {
  const location = { ...TEMPLATES.location, deliveryLocationUID: random.uuid(), changeTrackingIdentifier: 'v1' }
  const program = { ...TEMPLATES.program, programUID: random.uuid(), changeTrackingIdentifier: 'v1' }
  const programOffering = {
    ...TEMPLATES.programOffering,
    programOfferingUID: random.uuid(),
    programUID: program.programUID,
    deliveryLocationUID: location.deliveryLocationUID,
    changeTrackingIdentifier: 'v1',
  }
  const subjects = [0, 1].map(() => ({
    ...TEMPLATES.subject,
    subjectUID: random.uuid(),
    changeTrackingIdentifier: 'v1',
  }))
  const subjectOfferings = subjects.map((subject) => ({
    ...TEMPLATES.subjectOffering,
    subjectOfferingUID: random.uuid(),
    subjectUID: subject.subjectUID,
    deliveryLocationUID: location.deliveryLocationUID,
    changeTrackingIdentifier: 'v1',
  }))
  return { location, program, programOffering, subjects, subjectOfferings }
}

export function catalogueRecords(c: Catalogue): Body[] {
  return [c.location, c.program, c.programOffering, ...c.subjects, ...c.subjectOfferings]
}

/** One student of the RTO: the student, a program enrolment and a subject enrolment in it. */
export interface StudentSet {
  student: Body
  programEnrolment: Body
  subjectEnrolment: Body
}

export function studentSet(random: Random, c: Catalogue, n: number): StudentSet {
  const studentUID = random.uuid()
  const student = {
    ...TEMPLATES.student,
    studentUID,
    changeTrackingIdentifier: 'v1',
    clientIdentifier: `C${String(n).padStart(9, '0')}`,
    familyName: `Chaos${letters(n)}`,
    uniqueStudentIdentifier: validUsi(random),
    emailAddressPrimary: `student${n}@example.com`,
  }
  const programEnrolment = {
    ...TEMPLATES.programEnrolment,
    programEnrolmentUID: random.uuid(),
    studentUID,
    programOfferingUID: c.programOffering.programOfferingUID,
    changeTrackingIdentifier: 'v1',
  }
  const offering = random.pick(c.subjectOfferings)
  const subjectEnrolment = {
    ...TEMPLATES.subjectEnrolment,
    subjectEnrolmentUID: random.uuid(),
    studentUID,
    subjectOfferingUID: offering.subjectOfferingUID,
    programEnrolmentUID: programEnrolment.programEnrolmentUID,
    locations: [{ deliveryLocationUID: c.location.deliveryLocationUID, hoursAtLocation: 50 }],
    changeTrackingIdentifier: 'v1',
  }
  return { student, programEnrolment, subjectEnrolment }
}

export const recordsOf = (set: StudentSet): Body[] => [set.student, set.programEnrolment, set.subjectEnrolment]

/** The same student with a USI whose check character is wrong: validation refuses it (BRTS01200, an Error). */
export function withBadUsi(student: Body): Body {
  const usi = String(student.uniqueStudentIdentifier)
  const last = USI_ALPHABET[(USI_ALPHABET.indexOf(usi[9]!) + 1) % 32]!
  return { ...student, uniqueStudentIdentifier: usi.slice(0, 9) + last }
}

/** A new version of a record: another changeTrackingIdentifier (and for a student, another phone number). */
export function nextVersion(record: Body, version: number): Body {
  const changed: Body = { ...record, changeTrackingIdentifier: `v${version}` }
  if ('studentUID' in record && 'familyName' in record)
    changed.telephoneNumberMobile = `0412 ${String(100 + version).padStart(3, '0')} 678`
  return changed
}

function letters(i: number): string {
  let s = ''
  do {
    s += String.fromCharCode(97 + (i % 26))
    i = Math.floor(i / 26)
  } while (i > 0)
  return s
}

/** Type and UID of any record, from its own UID field (the SDK tells the type the same way). */
export function identityOf(record: Body): { resourceType: string; uid: string } {
  for (const [field, resourceType] of UID_FIELDS) {
    const uid = record[field]
    if (typeof uid === 'string') return { resourceType, uid }
  }
  throw new Error(`no UID field in ${JSON.stringify(record).slice(0, 100)}`)
}

// Enrolments first: a subject enrolment also names its student and program enrolment.
const UID_FIELDS: [string, string][] = [
  ['subjectEnrolmentUID', 'SubjectEnrolment'],
  ['programEnrolmentUID', 'ProgramEnrolment'],
  ['subjectOfferingUID', 'SubjectOffering'],
  ['programOfferingUID', 'ProgramOffering'],
  ['studentUID', 'Student'],
  ['subjectUID', 'Subject'],
  ['programUID', 'Program'],
  ['deliveryLocationUID', 'DeliveryLocation'],
]

/** A hash of a record's content that does not depend on key order (jsonb reorders keys). */
export function bodyHash(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16)
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Body)[key])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

export const asRecord = (body: Body): ResourceRecord => body as unknown as ResourceRecord
