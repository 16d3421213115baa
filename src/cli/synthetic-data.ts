// A believable held dataset for benchmarks and demonstrations: several RTOs, each with students in
// program and subject enrolments over shared programs, subjects, offerings and delivery locations,
// lifecycles spread over 2026 (registered, commenced, some cancelled, some deferred), and voids
// submitted afterwards. Records are written into transaction batches and made held through the bulk
// path (the same promotion and indexing as submit, without validation).
import { randomBytes, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { sql } from 'kysely'
import type { Db } from '../platform/db/database.ts'
import type { ResourceType } from '../domain/resource-types.ts'
import { createBatchWithRecords } from '../modules/batches/index.ts'
// Not at holdings' index: this seed is the one caller allowed to load held data without validation
// (.dependency-cruiser.cjs, operators-door-to-holdings).
import { submitWithoutValidation } from '../modules/holdings/bulk-load.ts'

export interface SyntheticOptions {
  /** Students per RTO; each brings a program enrolment and three subject enrolments (5 records). */
  students: number
  rtos: string[]
  jurisdiction: string
  /** Records per batch. */
  batchRecords: number
  /** One student with this many subject enrolments, in the first RTO (a busy student for related-resources). */
  busyStudentEnrolments: number
  /** Called after each batch with the records held so far. */
  onProgress?: (held: number) => void
}

export interface SyntheticSummary {
  records: number
  voided: number
  busyStudentUID: string
  /** Some held subject enrolment UIDs of the first RTO, for look-ups. */
  sampleSubjectEnrolmentUIDs: string[]
}

type Body = Record<string, unknown>
interface Row {
  type: ResourceType
  uid: string
  body: Body
}

const example = async (name: string): Promise<Body> =>
  JSON.parse(await readFile(new URL(`../../examples/minimal-unit-record/${name}.json`, import.meta.url), 'utf8'))
/** A run of lower-case letters naming `i` (0 is a, 26 is ab): distinct generated family names. */
export const letters = (i: number) => {
  let s = ''
  do {
    s += String.fromCharCode(97 + (i % 26))
    i = Math.floor(i / 26)
  } while (i > 0)
  return s
}
const pad = (n: number) => String(n).padStart(2, '0')

/** A lifecycle in 2026 up to the current quarter: registered, then commenced, sometimes cancelled or deferred. */
function lifecycle(i: number, programEnrolment: boolean): Body[] {
  const month = 1 + (i % 10)
  const day = 1 + (i % 27)
  const states: Body[] = [
    { studentStatus: 'Registered', studentActivityDate: `2026-${pad(month)}-${pad(day)}` },
    { studentStatus: 'Commenced', studentActivityDate: `2026-${pad(month)}-${pad(Math.min(day + 1, 28))}` },
  ]
  if (i % 17 === 0)
    states.push({
      studentStatus: 'Cancelled',
      studentActivityDate: `2026-${pad(Math.min(month + 1, 10))}-05`,
      studentStatusReason: 'Formal_withdrawal',
    })
  else if (programEnrolment && i % 23 === 0)
    states.push({
      studentStatus: 'Deferred',
      studentActivityDate: `2026-${pad(Math.min(month + 1, 10))}-07`,
      studentStatusReason: 'Deferral_Post',
    })
  return states
}

export async function seedSynthetic(db: Db, options: SyntheticOptions): Promise<SyntheticSummary> {
  const t = {
    student: await example('student'),
    location: await example('deliverylocation'),
    program: await example('program'),
    programOffering: await example('programoffering'),
    programEnrolment: await example('programenrolment'),
    subject: await example('subject'),
    subjectOffering: await example('subjectoffering'),
    subjectEnrolment: await example('subjectenrolment-in-program'),
  }
  let held = 0
  let voided = 0
  let busyStudentUID = ''
  const sample: string[] = []
  for (const [r, rto] of options.rtos.entries()) {
    let pending: Row[] = []
    const flush = async (force = false) => {
      if (pending.length === 0 || (!force && pending.length < options.batchRecords)) return
      held += await writeBatch(db, rto, options.jurisdiction, pending)
      pending = []
      options.onProgress?.(held)
    }
    const add = async (row: Row) => {
      pending.push(row)
      await flush()
    }
    const total = options.students
    const pool = (per: number) => Math.max(2, Math.floor(total / per))
    const locations = Array.from({ length: pool(500) }, () => randomUUID())
    const programs = Array.from({ length: pool(200) }, () => randomUUID())
    const programOfferings = Array.from({ length: pool(50) }, (_, i) => ({
      uid: randomUUID(),
      program: programs[i % programs.length]!,
      location: locations[i % locations.length]!,
    }))
    const subjects = Array.from({ length: pool(40) }, () => randomUUID())
    const subjectOfferings = Array.from({ length: pool(10) }, (_, i) => ({
      uid: randomUUID(),
      subject: subjects[i % subjects.length]!,
      programOffering: programOfferings[i % programOfferings.length]!,
      location: locations[i % locations.length]!,
    }))
    for (const uid of locations)
      await add({ type: 'DeliveryLocation', uid, body: { ...t.location, deliveryLocationUID: uid } })
    for (const uid of programs) await add({ type: 'Program', uid, body: { ...t.program, programUID: uid } })
    for (const o of programOfferings)
      await add({
        type: 'ProgramOffering',
        uid: o.uid,
        body: {
          ...t.programOffering,
          programOfferingUID: o.uid,
          programUID: o.program,
          deliveryLocationUID: o.location,
        },
      })
    for (const uid of subjects) await add({ type: 'Subject', uid, body: { ...t.subject, subjectUID: uid } })
    for (const o of subjectOfferings)
      await add({
        type: 'SubjectOffering',
        uid: o.uid,
        body: {
          ...t.subjectOffering,
          subjectOfferingUID: o.uid,
          subjectUID: o.subject,
          programOfferingUID: o.programOffering.uid,
          deliveryLocationUID: o.location,
        },
      })
    const toVoid: Row[] = []
    for (let i = 0; i < total; i++) {
      const student = randomUUID()
      const busy = r === 0 && i === 0 && options.busyStudentEnrolments > 0
      if (busy) busyStudentUID = student
      await add({
        type: 'Student',
        uid: student,
        body: {
          ...t.student,
          studentUID: student,
          familyName: `Synthetic${letters(i)}`,
          clientIdentifier: `S${i}`.slice(0, 10),
        },
      })
      const offering = programOfferings[i % programOfferings.length]!
      const programEnrolment = randomUUID()
      await add({
        type: 'ProgramEnrolment',
        uid: programEnrolment,
        body: {
          ...t.programEnrolment,
          programEnrolmentUID: programEnrolment,
          studentUID: student,
          programOfferingUID: offering.uid,
          lifecycle: lifecycle(i, true),
        },
      })
      const subjectEnrolments = busy ? options.busyStudentEnrolments : 3
      for (let k = 0; k < subjectEnrolments; k++) {
        const subjectOffering = subjectOfferings[(i * 3 + k) % subjectOfferings.length]!
        const uid = randomUUID()
        const row = {
          type: 'SubjectEnrolment' as const,
          uid,
          body: {
            ...t.subjectEnrolment,
            subjectEnrolmentUID: uid,
            studentUID: student,
            subjectOfferingUID: subjectOffering.uid,
            programEnrolmentUID: programEnrolment,
            locations: [{ deliveryLocationUID: subjectOffering.location, hoursAtLocation: 50 }],
            lifecycle: lifecycle(i * 3 + k, false),
          },
        }
        await add(row)
        if (r === 0 && sample.length < 1000 && k === 0) sample.push(uid)
        // One subject enrolment in two hundred is voided later, as a duplicate.
        if ((i * 3 + k) % 200 === 199)
          toVoid.push({ ...row, body: { ...row.body, isVoided: true, voidedReason: 'remove_duplicate_record' } })
      }
    }
    await flush(true)
    for (const row of toVoid) pending.push(row)
    voided += toVoid.length
    await flush(true)
  }
  return { records: held, voided, busyStudentUID, sampleSubjectEnrolmentUIDs: sample }
}

async function writeBatch(db: Db, rto: string, jurisdiction: string, rows: Row[]): Promise<number> {
  const token = `synthetic-${randomBytes(12).toString('hex')}`
  await createBatchWithRecords(
    db,
    { rto, token, jurisdiction, clientId: 'synthetic' },
    rows.map((row) => ({
      resourceType: row.type,
      resourceUID: row.uid,
      changeTrackingIdentifier: `${row.type}-1`,
      isVoided: row.body.isVoided === true,
      body: { ...row.body, changeTrackingIdentifier: `${row.type}-1` },
    })),
  )
  const held = await submitWithoutValidation(db, { rto, token, jurisdiction, clientId: 'synthetic' })
  // A bulk load outruns autovacuum: without fresh statistics the planner takes the growing tables for
  // small ones and later batches get nested-loop plans over thousands of rows. (Maintenance only: the
  // tables are batches', holdings' and reconciliation's; nothing is read or written here.)
  await sql`ANALYZE batch_record, held_record, held_link, reconciliation_item`.execute(db)
  return held
}
