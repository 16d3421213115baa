// Golden cases of every business rule: records that must pass a rule and records that must fail it.
// Record rules' cases run directly against the rule's check (src/modules/validation/rules/
// record-rules.test.ts); set rules' cases, and a few record rules' to prove the path end to end, run
// through the real service (test/business-rules.test.ts: held records are submitted first, then the
// batch is validated), which also fails when a rule in the catalogue has no cases here.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { Upload } from '../support/reporting.ts'
import { allOf, uidOf, uploadsOf, voided, type World } from '../support/world.ts'

export interface GoldenCase {
  name: string
  /** Submitted (validated, no blocking result) before the batch under test. */
  held?: (w: World) => Upload[]
  batch: (w: World) => Upload[]
}

/** One result a failing case expects: the record's type and UID, then its access paths in order. */
export type ExpectedResult = [resourceType: string, resourceUID: string, ...accessPath: string[]]

export interface FailingCase extends GoldenCase {
  /** Every result of the rule the batch must produce, no more and no fewer (in any order). */
  results: (w: World) => ExpectedResult[]
  /** Further checks of the rule's results: a level, a message, a data source, a group. */
  expect?: (results: any[], w: World) => void
}

export interface GoldenCases {
  passing: GoldenCase[]
  failing: FailingCase[]
}

/**
 * What a failing case's results must be, however they were produced: exactly the records and access
 * paths the case names (the identifiers, level and corrective action are the rule's own, copied in by
 * the engine, so they are not restated here), each result's group counted as its results, then the
 * case's own further checks.
 */
export function assertFailingCase(golden: FailingCase, own: any[], all: any[], w: World): void {
  const described = (result: ExpectedResult) => result.join(' ')
  assert.deepEqual(
    own.map((result) => described([result.resourceType, result.resourceUID, ...result.accessPath])).sort(),
    golden.results(w).map(described).sort(),
    `the rule's results; the batch's were ${JSON.stringify(all.map((r) => [r.technicalRuleId, r.resourceType, ...r.accessPath]))}`,
  )
  for (const result of own)
    assert.equal(
      own.filter((r) => r.validationGroupingId === result.validationGroupingId).length,
      result.relatedValidationResultCount,
      'relatedValidationResultCount counts the results of its group',
    )
  golden.expect?.(own, w)
}

const student = (w: World, changes: Record<string, unknown>): Upload => ({
  segment: 'student',
  body: { ...w.student, ...changes },
})
const without = (body: Record<string, unknown>, ...fields: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !fields.includes(key)))
const enrolmentWith = (
  w: World,
  name: 'subjectEnrolment' | 'programEnrolment' | 'subjectEnrolmentInProgram',
  changes: Record<string, unknown>,
): Upload => ({
  segment: name === 'programEnrolment' ? 'programenrolment' : 'subjectenrolment',
  body: { ...w[name], ...changes },
})
const commenced = { studentStatus: 'Commenced', studentActivityDate: '2026-10-05' }

/** The spec's BRTS02180 example: one subject enrolment at the location, offerings that name no location. */
const specExampleHeld = (w: World): Upload[] => [
  ...uploadsOf(w, 'student', 'location', 'subject'),
  { segment: 'subjectoffering', body: without(w.subjectOffering, 'deliveryLocationUID') },
  ...uploadsOf(w, 'subjectEnrolment'),
]

export const goldenCases: Record<string, GoldenCases> = {
  BRTS01180: {
    passing: [{ name: 'available with a primary email', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'available without a primary email',
        results: (w) => [['Student', uidOf(w.student), '$.surveyAvailability', '$.emailAddressPrimary']],
        batch: (w) => [student(w, { emailAddressPrimary: undefined })],
        // The specification's example: the result carries the record's change tracking identifier.
        expect: (results, w) => assert.equal(results[0].changeTrackingIdentifier, w.student.changeTrackingIdentifier),
      },
    ],
  },
  BRTS01200: {
    passing: [
      {
        name: 'a USI with a valid check character',
        batch: (w) => [student(w, { uniqueStudentIdentifier: 'BNGH7C75FN' })],
      },
    ],
    failing: [
      {
        name: 'a mistyped USI',
        results: (w) => [['Student', uidOf(w.student), '$.uniqueStudentIdentifier']],
        batch: (w) => [student(w, { uniqueStudentIdentifier: '7KQ3NHV8RN' })],
      },
    ],
  },
  BRTS01210: {
    passing: [
      {
        name: 'INTOFF for a student living overseas',
        batch: (w) => [
          student(w, {
            uniqueStudentIdentifier: 'INTOFF',
            permanentAddress: {
              suburbLocalityOrTown: 'Auckland',
              postcode: 'OSPC',
              state: 'Overseas',
              country: '1201',
            },
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'INTOFF for a student living in NSW',
        results: (w) => [
          [
            'Student',
            uidOf(w.student),
            '$.uniqueStudentIdentifier',
            '$.permanentAddress.postcode',
            '$.permanentAddress.state',
          ],
        ],
        batch: (w) => [student(w, { uniqueStudentIdentifier: 'INTOFF' })],
      },
    ],
  },
  BRTS01220: {
    passing: [{ name: 'postcodes in their states', batch: (w) => uploadsOf(w, 'student', 'location') }],
    failing: [
      {
        name: 'a Melbourne postcode in NSW',
        results: (w) => [['DeliveryLocation', uidOf(w.location), '$.address.postcode', '$.address.state']],
        batch: (w) => [
          {
            segment: 'deliverylocation',
            body: { ...w.location, address: { ...w.location.address, postcode: '3000' } },
          },
        ],
      },
      {
        name: 'OSPC with an Australian state',
        results: (w) => [['Student', uidOf(w.student), '$.postalAddress.postcode', '$.postalAddress.state']],
        batch: (w) => [student(w, { postalAddress: { ...w.student.postalAddress, postcode: 'OSPC' } })],
      },
    ],
  },
  BRTS01240: {
    passing: [{ name: 'codes of the shipped datasets', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a country code not in SACC',
        results: (w) => [['Student', uidOf(w.student), '$.countryOfBirth']],
        batch: (w) => [student(w, { countryOfBirth: '9999' })],
        expect: (results) => assert.match(results[0].message, /reference dataset country/),
      },
    ],
  },
  BRTS01300: {
    passing: [{ name: 'dates in order', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'activity ending before it starts',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.activityStartDate', '$.activityEndDate']],
        batch: (w) => [enrolmentWith(w, 'subjectEnrolment', { activityEndDate: '2026-10-01' })],
      },
    ],
  },
  BRTS01310: {
    passing: [
      {
        name: 'a continuing subject ending in the future',
        batch: (w) => [enrolmentWith(w, 'subjectEnrolment', { outcome: { outcomeIdentifierNational: 'Continuing' } })],
      },
    ],
    failing: [
      {
        name: 'competency achieved with an end date in the future',
        results: (w) => [
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.outcome.outcomeIdentifierNational', '$.activityEndDate'],
        ],
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            activityEndDate: '2099-03-26',
            outcome: { outcomeIdentifierNational: 'Competency_achieved' },
          }),
        ],
      },
      {
        name: 'a cancellation dated in the future',
        results: (w) => [['ProgramEnrolment', uidOf(w.programEnrolment), '$.lifecycle[1].studentActivityDate']],
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [
              commenced,
              {
                studentStatus: 'Cancelled',
                studentActivityDate: '2099-01-10',
                studentStatusReason: 'Formal_withdrawal',
              },
            ],
          }),
        ],
      },
    ],
  },
  BRTS01320: {
    passing: [{ name: 'activity in the current period or before', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a state dated in a future quarter',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.lifecycle[1].studentActivityDate']],
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Registered', studentActivityDate: '2099-01-10' }],
          }),
        ],
      },
    ],
  },
  BRTS01330: {
    passing: [{ name: 'activity from 2026', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'registration in 2025 (a Warning)',
        results: (w) => [['ProgramEnrolment', uidOf(w.programEnrolment), '$.lifecycle[0].studentActivityDate']],
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2025-11-03' }, commenced],
          }),
        ],
      },
    ],
  },
  BRTS01400: {
    passing: [
      {
        name: 'a deferral with a deferral reason',
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [
              commenced,
              { studentStatus: 'Deferred', studentActivityDate: '2026-10-20', studentStatusReason: 'Deferral_Post' },
            ],
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'a deferral with a cancellation reason',
        results: (w) => [
          [
            'ProgramEnrolment',
            uidOf(w.programEnrolment),
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentStatusReason',
          ],
        ],
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [
              commenced,
              {
                studentStatus: 'Deferred',
                studentActivityDate: '2026-10-20',
                studentStatusReason: 'Formal_withdrawal',
              },
            ],
          }),
        ],
      },
      {
        name: 'a deferral without a reason',
        results: (w) => [
          [
            'ProgramEnrolment',
            uidOf(w.programEnrolment),
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentStatusReason',
          ],
        ],
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Deferred', studentActivityDate: '2026-10-20' }],
          }),
        ],
      },
    ],
  },
  BRTS01410: {
    passing: [{ name: 'subject enrolments that are not deferred', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a deferred subject enrolment',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.lifecycle[1].studentStatus']],
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [
              commenced,
              { studentStatus: 'Deferred', studentActivityDate: '2026-10-20', studentStatusReason: 'Deferral_Post' },
            ],
          }),
        ],
      },
    ],
  },
  BRTS01460: {
    passing: [
      { name: 'a first upload whose history starts at Commenced (the minimal unit record)', batch: (w) => allOf(w) },
      {
        name: 'a first upload that is Registered only',
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2026-10-01' }],
          }),
        ],
      },
      {
        name: 'Registered, then Commenced',
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2026-10-01' }, commenced],
          }),
        ],
      },
      {
        name: 'Registered and Commenced on the same day',
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Registered', studentActivityDate: '2026-10-05' }],
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'Registered after Commenced (a Warning)',
        results: (w) => [
          [
            'SubjectEnrolment',
            uidOf(w.subjectEnrolment),
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentActivityDate',
          ],
        ],
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Registered', studentActivityDate: '2026-10-20' }],
          }),
        ],
      },
    ],
  },
  BRTS01420: {
    passing: [
      {
        name: 'a cancellation with a cancellation reason',
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [
              commenced,
              {
                studentStatus: 'Cancelled',
                studentActivityDate: '2026-10-20',
                studentStatusReason: 'Informal_withdrawal',
              },
            ],
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'a cancellation without a reason',
        results: (w) => [
          [
            'SubjectEnrolment',
            uidOf(w.subjectEnrolment),
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentStatusReason',
          ],
        ],
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Cancelled', studentActivityDate: '2026-10-20' }],
          }),
        ],
      },
    ],
  },
  BRTS01430: {
    passing: [
      {
        name: 'a deferral once the subject enrolment is cancelled in the same batch',
        held: (w) => allOf(w),
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [
              commenced,
              { studentStatus: 'Deferred', studentActivityDate: '2026-10-20', studentStatusReason: 'Deferral_Post' },
            ],
          }),
          enrolmentWith(w, 'subjectEnrolmentInProgram', {
            lifecycle: [
              commenced,
              {
                studentStatus: 'Cancelled',
                studentActivityDate: '2026-10-20',
                studentStatusReason: 'Formal_withdrawal',
              },
            ],
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'a deferral while a held subject enrolment is Commenced',
        results: (w) => [
          ['ProgramEnrolment', uidOf(w.programEnrolment), '$.lifecycle'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram), '$.lifecycle', '$.programEnrolmentUID'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [
              commenced,
              { studentStatus: 'Deferred', studentActivityDate: '2026-10-20', studentStatusReason: 'Deferral_Post' },
            ],
          }),
        ],
        expect: (results, w) => {
          assert.deepEqual(
            results.map((r) => [r.resourceType, r.resourceUID, r.dataSource, r.relatedValidationResultCount]),
            [
              ['ProgramEnrolment', w.programEnrolment.programEnrolmentUID, 'Transaction_batch', 2],
              ['SubjectEnrolment', w.subjectEnrolmentInProgram.subjectEnrolmentUID, 'Previously_submitted_data', 2],
            ],
          )
          assert.equal(results[0].validationGroupingId, results[1].validationGroupingId)
        },
      },
    ],
  },
  BRTS01440: {
    passing: [{ name: 'a program enrolment with its subject enrolment', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a program enrolment without subject enrolments',
        results: (w) => [['ProgramEnrolment', uidOf(w.programEnrolment), '$.programEnrolmentUID']],
        batch: (w) => uploadsOf(w, 'student', 'location', 'program', 'programOffering', 'programEnrolment'),
      },
      {
        name: 'voiding the only subject enrolment of a held program enrolment',
        results: (w) => [
          ['ProgramEnrolment', uidOf(w.programEnrolment), '$.programEnrolmentUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram), '$.isVoided'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolmentInProgram) }],
        // The void that caused it belongs to the group: two results, one validationGroupingId.
        expect: (results, w) => {
          const program = results.find((r) => r.resourceType === 'ProgramEnrolment')
          const void_ = results.find((r) => r.resourceType === 'SubjectEnrolment')
          assert.equal(program.dataSource, 'Previously_submitted_data')
          assert.equal(program.resourceUID, uidOf(w.programEnrolment))
          assert.deepEqual(
            [void_.resourceUID, void_.accessPath, void_.dataSource],
            [uidOf(w.subjectEnrolmentInProgram), ['$.isVoided'], 'Transaction_batch'],
          )
          assert.equal(void_.validationGroupingId, program.validationGroupingId)
          assert.deepEqual(
            results.map((r) => r.relatedValidationResultCount),
            [2, 2],
          )
        },
      },
      {
        name: 'a held subject enrolment moved to another program enrolment leaves its old one without any',
        held: (w) => allOf(w),
        batch: (w) => {
          const other = { ...w.programEnrolment, programEnrolmentUID: randomUUID(), changeTrackingIdentifier: 'other' }
          return [
            { segment: 'programenrolment', body: other },
            enrolmentWith(w, 'subjectEnrolmentInProgram', { programEnrolmentUID: other.programEnrolmentUID }),
          ]
        },
        results: (w) => [
          ['ProgramEnrolment', uidOf(w.programEnrolment), '$.programEnrolmentUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram), '$.programEnrolmentUID'],
        ],
        // One group: the subject enrolment that moved away is the cause.
        expect: (results) =>
          assert.deepEqual(
            results.map((r) => r.relatedValidationResultCount),
            [2, 2],
          ),
      },
    ],
  },
  BRTS01450: {
    passing: [
      {
        name: 'a re-upload that adds a state and keeps the history',
        held: (w) => allOf(w),
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [
              commenced,
              {
                studentStatus: 'Cancelled',
                studentActivityDate: '2026-10-20',
                studentStatusReason: 'Formal_withdrawal',
              },
            ],
          }),
        ],
      },
    ],
    failing: [
      {
        name: 'a re-upload that drops the submitted Commenced state',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.lifecycle']],
        held: (w) => allOf(w),
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [
              {
                studentStatus: 'Cancelled',
                studentActivityDate: '2026-10-20',
                studentStatusReason: 'Formal_withdrawal',
              },
            ],
          }),
        ],
        expect: (results) => assert.match(results[0].message, /Commenced on 2026-10-05/),
      },
    ],
  },
  BRTS02100: {
    passing: [
      {
        name: 'references resolved through previously submitted data',
        held: (w) => allOf(w),
        batch: (w) => [enrolmentWith(w, 'subjectEnrolment', { changeTrackingIdentifier: 'v2' })],
      },
    ],
    failing: [
      {
        name: 'a subject enrolment whose student, offering and location are nowhere',
        results: (w) => [
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.locations[0].deliveryLocationUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.studentUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.subjectOfferingUID'],
        ],
        batch: (w) => uploadsOf(w, 'subjectEnrolment'),
      },
    ],
  },
  BRTS02180: {
    passing: [
      {
        name: 'a location voided after its offerings and subject enrolments moved to another location in the same batch',
        held: (w) => allOf(w),
        batch: (w) => {
          const at = { deliveryLocationUID: randomUUID() }
          const moved = {
            ...w.location,
            ...at,
            deliveryLocationIdentifier: 'PARRA',
            changeTrackingIdentifier: 'location-2',
          }
          return [
            { segment: 'deliverylocation', body: moved },
            { segment: 'deliverylocation', body: voided(w.location, 'remove_duplicate_record') },
            { segment: 'subjectoffering', body: { ...w.subjectOffering, ...at } },
            { segment: 'programoffering', body: { ...w.programOffering, ...at } },
            enrolmentWith(w, 'subjectEnrolment', { locations: [{ ...w.subjectEnrolment.locations[0], ...at }] }),
            enrolmentWith(w, 'subjectEnrolmentInProgram', {
              locations: [{ ...w.subjectEnrolmentInProgram.locations[0], ...at }],
            }),
          ]
        },
      },
      {
        name: "the spec's example corrected: the location voided together with the one subject enrolment at it",
        held: (w) => specExampleHeld(w),
        batch: (w) => [
          { segment: 'deliverylocation', body: voided(w.location) },
          { segment: 'subjectenrolment', body: voided(w.subjectEnrolment) },
        ],
      },
    ],
    failing: [
      {
        name: "the spec's example: a location voided while one held subject enrolment uses it is one group of two",
        results: (w) => [
          ['DeliveryLocation', uidOf(w.location), '$.isVoided', '$.voidedReason'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.locations[0].deliveryLocationUID'],
        ],
        held: (w) => specExampleHeld(w),
        batch: (w) => [{ segment: 'deliverylocation', body: voided(w.location) }],
        expect: (results, w) => {
          assert.deepEqual(
            results.map((r) => [r.resourceType, r.resourceUID, r.dataSource, r.relatedValidationResultCount]),
            [
              ['DeliveryLocation', w.location.deliveryLocationUID, 'Transaction_batch', 2],
              ['SubjectEnrolment', w.subjectEnrolment.subjectEnrolmentUID, 'Previously_submitted_data', 2],
            ],
          )
          assert.equal(results[0].validationGroupingId, results[1].validationGroupingId)
          assert.deepEqual(results[1].accessPath, ['$.locations[0].deliveryLocationUID'])
        },
      },
      {
        name: 'a location voided while held offerings and subject enrolments use it is one group: the location once, then every record to change',
        results: (w) => [
          ['DeliveryLocation', uidOf(w.location), '$.isVoided', '$.voidedReason'],
          ['ProgramOffering', uidOf(w.programOffering), '$.deliveryLocationUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram), '$.locations[0].deliveryLocationUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.locations[0].deliveryLocationUID'],
          ['SubjectOffering', uidOf(w.subjectOffering), '$.deliveryLocationUID'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'deliverylocation', body: voided(w.location) }],
        expect: (results, w) => {
          assert.equal(new Set(results.map((r) => r.validationGroupingId)).size, 1)
          assert.deepEqual(
            results.map((r) => [r.resourceType, r.resourceUID, r.dataSource, r.relatedValidationResultCount]),
            [
              ['DeliveryLocation', w.location.deliveryLocationUID, 'Transaction_batch', 5],
              ['ProgramOffering', w.programOffering.programOfferingUID, 'Previously_submitted_data', 5],
              ...[w.subjectEnrolment, w.subjectEnrolmentInProgram]
                .map((e) => ['SubjectEnrolment', e.subjectEnrolmentUID, 'Previously_submitted_data', 5])
                .sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
              ['SubjectOffering', w.subjectOffering.subjectOfferingUID, 'Previously_submitted_data', 5],
            ],
          )
          assert.match(results[0].message, /4 record\(s\) still reference it/)
          assert.deepEqual(results.find((r) => r.resourceType === 'SubjectOffering').accessPath, [
            '$.deliveryLocationUID',
          ])
        },
      },
    ],
  },
  BRTS02190: {
    passing: [
      {
        name: 'voiding a subject enrolment nothing references',
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment) }],
      },
    ],
    failing: [
      {
        name: 'voiding a student with held enrolments',
        results: (w) => [
          ['Student', uidOf(w.student), '$.isVoided', '$.voidedReason'],
          ['ProgramEnrolment', uidOf(w.programEnrolment), '$.studentUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.studentUID'],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram), '$.studentUID'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'student', body: voided(w.student, 'remove_duplicate_record') }],
        expect: (results, w) => {
          assert.equal(results[0].resourceUID, w.student.studentUID)
          assert.deepEqual(
            results
              .slice(1)
              .map((r) => r.resourceType)
              .sort(),
            ['ProgramEnrolment', 'SubjectEnrolment', 'SubjectEnrolment'],
          )
          assert.ok(results.every((r) => r.relatedValidationResultCount === 4))
        },
      },
    ],
  },
  BRTS02200: {
    passing: [
      {
        name: 'voiding a held record',
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment) }],
      },
    ],
    failing: [
      {
        name: 'voiding a record never submitted',
        results: (w) => [['Student', uidOf(w.student), '$.isVoided']],
        batch: (w) => [{ segment: 'student', body: voided(w.student, 'remove_duplicate_record') }],
      },
    ],
  },
  BRTS02210: {
    passing: [
      {
        name: 'a subject offering voided as a duplicate, with the subject enrolments that depend on it voided as orphans',
        held: (w) => allOf(w),
        batch: (w) => [
          { segment: 'subjectoffering', body: voided(w.subjectOffering, 'remove_duplicate_record') },
          { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_orphaned_record') },
          { segment: 'subjectenrolment', body: voided(w.subjectEnrolmentInProgram, 'remove_orphaned_record') },
        ],
      },
      {
        name: 'a duplicate voided while everything it references stays',
        held: (w) => allOf(w),
        batch: (w) => [{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') }],
      },
    ],
    failing: [
      {
        name: 'a subject enrolment voided as a duplicate in the same batch as the subject offering it references',
        results: (w) => [
          ['SubjectEnrolment', uidOf(w.subjectEnrolment), '$.voidedReason', '$.subjectOfferingUID'],
          ['SubjectOffering', uidOf(w.subjectOffering), '$.isVoided'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [
          { segment: 'subjectoffering', body: voided(w.subjectOffering, 'remove_duplicate_record') },
          { segment: 'subjectenrolment', body: voided(w.subjectEnrolment, 'remove_duplicate_record') },
          { segment: 'subjectenrolment', body: voided(w.subjectEnrolmentInProgram, 'remove_orphaned_record') },
        ],
        expect: (results, w) => {
          assert.deepEqual(
            results.map((r) => [
              r.resourceType,
              r.resourceUID,
              r.dataSource,
              r.accessPath,
              r.relatedValidationResultCount,
            ]),
            [
              [
                'SubjectEnrolment',
                w.subjectEnrolment.subjectEnrolmentUID,
                'Transaction_batch',
                ['$.voidedReason', '$.subjectOfferingUID'],
                2,
              ],
              ['SubjectOffering', w.subjectOffering.subjectOfferingUID, 'Transaction_batch', ['$.isVoided'], 2],
            ],
            'the enrolment voided as an orphan is not reported; the offering itself references nothing voided',
          )
          assert.equal(results[0].validationGroupingId, results[1].validationGroupingId)
          assert.match(
            results[0].message,
            /voidedReason remove_duplicate_record, but it references SubjectOffering \S+ \(voided in this batch, at \$\.subjectOfferingUID\)/,
          )
        },
      },
    ],
  },
  BRTS03100: {
    passing: [
      {
        name: 'a student of another name',
        held: (w) => allOf(w),
        batch: (w) => [student(w, { changeTrackingIdentifier: 'v2' })],
      },
    ],
    failing: [
      {
        name: 'a second student with the same name and date of birth',
        results: (w) => [
          ['Student', '5f0c1f4e-8d8a-4d7e-9a1e-3c2b1a0f9e8d', '$.familyName', '$.firstGivenName', '$.dateOfBirth'],
          ['Student', uidOf(w.student), '$.familyName', '$.firstGivenName', '$.dateOfBirth'],
        ],
        held: (w) => allOf(w),
        batch: (w) => [
          { segment: 'student', body: { ...w.student, studentUID: '5f0c1f4e-8d8a-4d7e-9a1e-3c2b1a0f9e8d' } },
        ],
        expect: (results) => {
          assert.deepEqual(
            results.map((r) => [r.dataSource, r.validationMessageLevel]),
            [
              ['Transaction_batch', 'Warning'],
              ['Previously_submitted_data', 'Warning'],
            ],
          )
          assert.equal(results[0].validationGroupingId, results[1].validationGroupingId)
        },
      },
    ],
  },
}

export { without }
