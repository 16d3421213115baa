// Batches for the benchmarks, written straight into the database (bench/validation.ts, bench/fairness.ts):
// a realistic mix of all eight resources (per learner: a student, a program enrolment and three subject
// enrolments; offerings, subjects, programs and locations shared). One learner in a hundred is reported
// twice, so validation finds some duplicate-student Warnings.
import { randomBytes, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Db } from '../src/platform/db/database.ts'
import { letters } from '../src/cli/synthetic-data.ts'

type Body = Record<string, any>
const example = async (name: string): Promise<Body> =>
  JSON.parse(await readFile(new URL(`../examples/minimal-unit-record/${name}.json`, import.meta.url), 'utf8'))
const templates = {
  student: await example('student'),
  location: await example('deliverylocation'),
  program: await example('program'),
  programOffering: await example('programoffering'),
  programEnrolment: await example('programenrolment'),
  subject: await example('subject'),
  subjectOffering: await example('subjectoffering'),
  subjectEnrolment: await example('subjectenrolment-in-program'),
}

interface Row {
  resource_type: string
  resource_uid: string
  change_tracking_identifier: string
  body: Body
}

/** The batch's records, generated a chunk at a time so the bench itself holds little memory. */
function* records(total: number): Generator<Row[]> {
  const pool = (per: number) => Math.max(1, Math.floor(total / per))
  const locations = Array.from({ length: pool(1000) }, () => randomUUID())
  const programs = Array.from({ length: pool(500) }, () => randomUUID())
  const programOfferings = Array.from({ length: pool(250) }, (_, i) => ({
    uid: randomUUID(),
    program: programs[i % programs.length]!,
    location: locations[i % locations.length]!,
  }))
  const subjects = Array.from({ length: pool(200) }, () => randomUUID())
  const subjectOfferings = Array.from({ length: pool(100) }, (_, i) => ({
    uid: randomUUID(),
    subject: subjects[i % subjects.length]!,
    location: locations[i % locations.length]!,
  }))
  const row = (type: string, uid: string, body: Body): Row => ({
    resource_type: type,
    resource_uid: uid,
    change_tracking_identifier: `${type}-1`,
    body: { ...body, changeTrackingIdentifier: `${type}-1` },
  })
  let chunk: Row[] = []
  const push = function* (r: Row) {
    chunk.push(r)
    if (chunk.length >= 1000) {
      yield chunk
      chunk = []
    }
  }
  for (const uid of locations)
    yield* push(row('DeliveryLocation', uid, { ...templates.location, deliveryLocationUID: uid }))
  for (const uid of programs) yield* push(row('Program', uid, { ...templates.program, programUID: uid }))
  for (const o of programOfferings)
    yield* push(
      row('ProgramOffering', o.uid, {
        ...templates.programOffering,
        programOfferingUID: o.uid,
        programUID: o.program,
        deliveryLocationUID: o.location,
      }),
    )
  for (const uid of subjects) yield* push(row('Subject', uid, { ...templates.subject, subjectUID: uid }))
  for (const o of subjectOfferings)
    yield* push(
      row('SubjectOffering', o.uid, {
        ...templates.subjectOffering,
        subjectOfferingUID: o.uid,
        subjectUID: o.subject,
        deliveryLocationUID: o.location,
      }),
    )
  const shared =
    locations.length + programs.length + programOfferings.length + subjects.length + subjectOfferings.length
  const learners = Math.floor((total - shared) / 5)
  for (let i = 0; i < learners; i++) {
    const student = randomUUID()
    // One learner in a hundred is reported twice under two UIDs: a duplicate-student Warning each.
    const name = i % 100 === 99 ? `Bench${letters(i - 1)}` : `Bench${letters(i)}`
    yield* push(row('Student', student, { ...templates.student, studentUID: student, familyName: name }))
    const offering = programOfferings[i % programOfferings.length]!
    const programEnrolment = randomUUID()
    yield* push(
      row('ProgramEnrolment', programEnrolment, {
        ...templates.programEnrolment,
        programEnrolmentUID: programEnrolment,
        studentUID: student,
        programOfferingUID: offering.uid,
      }),
    )
    for (let k = 0; k < 3; k++) {
      const subjectOffering = subjectOfferings[(i * 3 + k) % subjectOfferings.length]!
      const uid = randomUUID()
      yield* push(
        row('SubjectEnrolment', uid, {
          ...templates.subjectEnrolment,
          subjectEnrolmentUID: uid,
          studentUID: student,
          subjectOfferingUID: subjectOffering.uid,
          programEnrolmentUID: programEnrolment,
          locations: [{ deliveryLocationUID: subjectOffering.location, hoursAtLocation: 50 }],
        }),
      )
    }
  }
  if (chunk.length > 0) yield chunk
}

/**
 * `total` students, each with a USI whose check character is wrong (a BRTS01200 Error each) and one in
 * ten also without the email address surveys need (a BRTS01180 Error): a batch whose validation fails
 * `total * 1.1` results, for the console's results page (bench/console-results.ts).
 */
export function* failingStudents(total: number): Generator<Row[]> {
  for (let start = 0; start < total; start += 1000) {
    const chunk: Row[] = []
    for (let i = start; i < Math.min(total, start + 1000); i++) {
      const uid = randomUUID()
      const body: Body = {
        ...templates.student,
        studentUID: uid,
        changeTrackingIdentifier: `Student-${i}`,
        familyName: `Bench${letters(i)}`,
        uniqueStudentIdentifier: '7KQ3NHV8RN', // the example's USI with its check character changed
      }
      if (i % 10 === 0) delete body.emailAddressPrimary
      chunk.push({ resource_type: 'Student', resource_uid: uid, change_tracking_identifier: `Student-${i}`, body })
    }
    yield chunk
  }
}

/** What submit's promotion is given for the loaded batch: the demo RTO's first submission, now. */
export function firstSubmissionOf(token: string) {
  return {
    rto: '90001',
    token,
    jurisdiction: 'NSW',
    clientId: 'demo-rto-1',
    submissionSeq: '1',
    submittedAt: new Date(),
  }
}

/**
 * A batch of `total` records (the mix above, or those `source` gives) written straight into the
 * database for an RTO, as its demo client uploaded them: the benchmarks of what happens after upload
 * need not upload.
 */
export async function loadBatch(
  db: Db,
  total: number,
  owner: { rto: string; clientId: string } = { rto: '90001', clientId: 'demo-rto-1' },
  source: (total: number) => Generator<Row[]> = records,
): Promise<{ token: string; count: number }> {
  const token = `bench-${randomBytes(12).toString('hex')}`
  await db
    .insertInto('transaction_batch')
    .values({
      rto_id: owner.rto,
      transaction_batch_token: token,
      jurisdiction: 'NSW',
      created_by_client: owner.clientId,
      submitted_at: null,
    })
    .execute()
  let count = 0
  for (const chunk of source(total)) {
    await db
      .insertInto('batch_record')
      .values(
        chunk.map((r) => ({
          rto_id: owner.rto,
          transaction_batch_token: token,
          resource_type: r.resource_type,
          resource_uid: r.resource_uid,
          change_tracking_identifier: r.change_tracking_identifier,
          is_voided: false,
          body: JSON.stringify(r.body),
          uploaded_by_client: owner.clientId,
          uploaded_at: new Date(),
        })),
      )
      .execute()
    count += chunk.length
  }
  return { token, count }
}
