// Business rules against the specification's exact words (issue 30), through the real service:
// - No_value "has the same outcome as null": every rule, run on a batch where a field holds No_value
//   and on the same batch with the field left out, gives the same results, for every field whose
//   code list carries No_value;
// - a code is valid on the dates its reference record was in force (BRTS01240): a release that
//   end-dates it does not make earlier enrolments fail.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { noValueFields } from '../src/modules/validation/no-value.ts'
import { loadRelease } from '../src/modules/reference-data/index.ts'
import { parseReleaseFile } from '../src/modules/reference-data/release-file.ts'
import { utcToday } from '../src/domain/reporting-period.ts'
import { allOf, Reporter, startTestService, world, type TestService, type Upload, type World } from './support/index.ts'

/** The fields whose code list carries No_value, written out: a list that gains No_value must be added here. */
const NO_VALUE_FIELDS = {
  Student: [
    'gender',
    'permanentAddress.state',
    'termAddress.state',
    'postalAddress.state',
    'indigenousStatus',
    'highestSchoolLevelCompleted',
    'labourForceStatus',
  ],
  ProgramEnrolment: ['studyReason'],
  SubjectEnrolment: ['studyReason'],
} as const

/** The world's record of each type that carries the field (both subject enrolments for SubjectEnrolment). */
const RECORDS_OF: Record<keyof typeof NO_VALUE_FIELDS, (keyof World)[]> = {
  Student: ['student'],
  ProgramEnrolment: ['programEnrolment'],
  SubjectEnrolment: ['subjectEnrolment', 'subjectEnrolmentInProgram'],
}

type Body = Record<string, any>

/** Sets (or, with undefined, leaves out) the field at a dotted path; the objects on the way must exist. */
function setField(body: Body, path: string, value: string | undefined): void {
  const names = path.split('.')
  const last = names.pop()!
  const parent = names.reduce((node, name) => node[name], body)
  if (value === undefined) delete parent[last]
  else parent[last] = value
}

interface Scenario {
  name: string
  type: keyof typeof NO_VALUE_FIELDS
  field: string
  /** Makes the records such that the rules that could read the field have something to say. */
  arrange?: (w: World) => void
}

const address = (w: World, name: string, postcode: string) => {
  w.student[name] = { ...w.student.permanentAddress, postcode }
}

// Each field, in the contexts that make rules read it: an address with a postcode in a state's
// ranges, OSPC, and 0000, under an INTOFF identifier (BRTS01210 names the state); a school level
// with its completion year.
const scenarios: Scenario[] = [
  ...(['permanentAddress', 'termAddress', 'postalAddress'] as const).flatMap((name) =>
    ['2150', 'OSPC', '0000'].map(
      (postcode): Scenario => ({
        name: `${name}.state with postcode ${postcode}, USI INTOFF`,
        type: 'Student',
        field: `${name}.state`,
        arrange: (w) => {
          address(w, name, postcode)
          w.student.uniqueStudentIdentifier = 'INTOFF'
        },
      }),
    ),
  ),
  {
    name: 'highestSchoolLevelCompleted with highestSchoolLevelCompletedYear',
    type: 'Student',
    field: 'highestSchoolLevelCompleted',
    arrange: (w) => {
      w.student.highestSchoolLevelCompletedYear = 2018
    },
  },
  {
    name: 'highestSchoolLevelCompleted without a year',
    type: 'Student',
    field: 'highestSchoolLevelCompleted',
    arrange: (w) => delete w.student.highestSchoolLevelCompletedYear,
  },
  ...(['gender', 'indigenousStatus', 'labourForceStatus'] as const).map(
    (field): Scenario => ({ name: field, type: 'Student', field }),
  ),
  { name: 'studyReason of a program enrolment', type: 'ProgramEnrolment', field: 'studyReason' },
  { name: 'studyReason of both subject enrolments', type: 'SubjectEnrolment', field: 'studyReason' },
]

/** A result without what differs between two runs (grouping ids), in a stable order. */
const comparable = (results: Record<string, any>[]) =>
  results
    .map(({ validationGroupingId: _, ...rest }) => JSON.stringify(rest))
    .sort()
    .map((text) => JSON.parse(text))

describe('No_value has the same outcome as a left-out field, for every rule', () => {
  let t: TestService
  let reporter: Reporter
  before(async () => {
    t = await startTestService()
    reporter = new Reporter(t.baseUrl, await t.token())
  })
  after(() => t.close())

  it('the fields whose code list carries No_value are exactly those the rules are shown without it', () => {
    const expected = Object.fromEntries(
      Object.keys(noValueFields).map((type) => [
        type,
        [...(NO_VALUE_FIELDS[type as keyof typeof NO_VALUE_FIELDS] ?? [])],
      ]),
    )
    assert.deepEqual(noValueFields, expected)
  })

  it('every field whose list carries No_value has a scenario here', () => {
    for (const [type, fields] of Object.entries(NO_VALUE_FIELDS))
      for (const field of fields)
        assert.ok(
          scenarios.some((s) => s.type === type && s.field === field),
          `${type}.${field} has no scenario`,
        )
  })

  for (const scenario of scenarios) {
    it(`every rule gives the same results for ${scenario.type} ${scenario.name}: No_value or left out`, async () => {
      const w = await world()
      scenario.arrange?.(w)
      const batchOf = (value: string | undefined): Upload[] =>
        allOf(w).map((upload) => {
          const body = structuredClone(upload.body) as Body
          const name = (Object.keys(w) as (keyof World)[]).find((key) => w[key] === upload.body)!
          if (RECORDS_OF[scenario.type].includes(name)) setField(body, scenario.field, value)
          return { ...upload, body }
        })
      const withNoValue = await reporter.validate(await reporter.batchWith(batchOf('No_value')))
      const leftOut = await reporter.validate(await reporter.batchWith(batchOf(undefined)))
      assert.deepEqual(comparable(withNoValue.results), comparable(leftOut.results))
      assert.deepEqual(
        ['hasBlockingValidationFailures', 'hasNonBlockingValidationFailures', 'numberOfResults'].map(
          (name) => withNoValue.status[name],
        ),
        ['hasBlockingValidationFailures', 'hasNonBlockingValidationFailures', 'numberOfResults'].map(
          (name) => leftOut.status[name],
        ),
      )
    })
  }
})

describe('BRTS01240: a code counts on the dates its reference record was in force', () => {
  let t: TestService
  let reporter: Reporter
  before(async () => {
    t = await startTestService()
    reporter = new Reporter(t.baseUrl, await t.token())
  })
  after(() => t.close())

  const cancelled = (w: World, started: string, cancelledOn: string): Upload => ({
    segment: 'subjectenrolment',
    body: {
      ...w.subjectEnrolment,
      activityStartDate: started,
      lifecycle: [
        { studentStatus: 'Commenced', studentActivityDate: started },
        { studentStatus: 'Cancelled', studentActivityDate: cancelledOn, studentStatusReason: 'Informal_withdrawal' },
      ],
    },
  })
  const codeResults = async (uploads: Upload[]) =>
    (await reporter.validate(await reporter.batchWith(uploads))).results.filter(
      (r) => r.technicalRuleId === 'BRTS01240',
    )

  it('a release that end-dates a code today leaves an enrolment that started before valid, and refuses one that starts after', async () => {
    const w = await world()
    const records = allOf(w).filter((upload) => upload.segment !== 'subjectenrolment')
    assert.deepEqual(await codeResults([...records, cancelled(w, '2026-10-05', '2026-10-20')]), [])
    // The release leaves out Informal_withdrawal: the loader end-dates it today (Inactive).
    const summary = await loadRelease(
      t.service.database.db,
      'student-status-reason',
      parseReleaseFile(
        'code\tdescription\nDeferral_Pre\tDeferral (pre)\nDeferral_Post\tDeferral (post)\nFormal_withdrawal\tCancellation: formal withdrawal\n',
        'release.tsv',
      ),
    )
    assert.equal(summary.endDated, 1)
    const today = utcToday()
    assert.deepEqual(await codeResults([...records, cancelled(w, '2026-10-05', '2026-10-20')]), [])
    assert.deepEqual(await codeResults([...records, cancelled(w, today, today)]), [], 'in force on its end date')
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    const after = await codeResults([...records, cancelled(w, tomorrow, tomorrow)])
    assert.deepEqual(
      after.map((r) => [r.accessPath, r.message]),
      [
        [
          ['$.lifecycle[1].studentStatusReason'],
          `lifecycle[1].studentStatusReason Informal_withdrawal is not a code of reference dataset student-status-reason in force on ${tomorrow}.`,
        ],
      ],
    )
  })

  it('a record without a date (a student) needs a code that is active now', async () => {
    const w = await world()
    await loadRelease(
      t.service.database.db,
      'labour-force-status',
      parseReleaseFile('code\tdescription\nFull_time_employee\tFull-time employee\n', 'release.tsv'),
    )
    const results = await codeResults([
      { segment: 'student', body: { ...w.student, labourForceStatus: 'Part_time_employee' } },
    ])
    assert.deepEqual(
      results.map((r) => r.message),
      ['labourForceStatus Part_time_employee is not an active code of reference dataset labour-force-status.'],
    )
  })
})
