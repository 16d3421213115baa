// Golden cases of every business rule: records that must pass a rule and records that must fail it.
// Record rules' cases run directly against the rule's check (src/modules/validation/rules/
// record-rules.test.ts); set rules' cases, and a few record rules' to prove the path end to end, run
// through the real service (test/business-rules.test.ts: held records are submitted first, then the
// batch is validated), which also fails when a rule in the catalogue has no cases here.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { Rule } from '../../src/modules/validation/index.ts'
import type { Upload } from '../support/reporting.ts'
import { allOf, uidOf, uploadsOf, voided, type World } from '../support/world.ts'

export interface GoldenCase {
  name: string
  /** Submitted (validated, no blocking result) before the batch under test. */
  held?: (w: World) => Upload[]
  batch: (w: World) => Upload[]
  /** Further checks of the rule's results (failing cases). */
  expect?: (results: any[], w: World) => void
}

export interface GoldenCases {
  passing: GoldenCase[]
  failing: GoldenCase[]
}

/**
 * What every failing case's results say, however they were produced: `own` are the rule's results
 * among all the batch's, at least one, each with the rule's identifiers, level and corrective action,
 * access paths into the record, a resource type the rule reports, and its group's count.
 */
export function assertRuleResults(rule: Rule, own: any[], all: any[]): void {
  assert.ok(
    own.length > 0,
    `expected ${rule.technicalRuleId}; got ${JSON.stringify(all.map((r) => r.technicalRuleId))}`,
  )
  for (const result of own) {
    assert.equal(result.validationMessageLevel, rule.level)
    assert.equal(result.ruleId, rule.ruleId)
    assert.equal(result.errorNumber, rule.technicalRuleId)
    assert.equal(result.correctiveAction, rule.correctiveAction)
    assert.ok(result.accessPath.length > 0 && result.accessPath.every((path: string) => path.startsWith('$.')))
    assert.ok(
      (rule.resourceTypes as readonly string[]).includes(result.resourceType),
      `${result.resourceType} is not among the rule's resource types`,
    )
    assert.equal(
      own.filter((r) => r.validationGroupingId === result.validationGroupingId).length,
      result.relatedValidationResultCount,
    )
  }
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
        batch: (w) => [student(w, { emailAddressPrimary: undefined })],
        expect: (results, w) => {
          assert.equal(results.length, 1)
          assert.deepEqual(results[0].accessPath, ['$.surveyAvailability', '$.emailAddressPrimary'])
          assert.equal(results[0].ruleId, 'BRDG00017')
          assert.equal(results[0].errorNumber, 'BRTS01180')
          assert.equal(results[0].correctiveAction, 'Provide a value for emailAddressPrimary.')
          assert.equal(results[0].resourceUID, w.student.studentUID)
          assert.equal(results[0].changeTrackingIdentifier, w.student.changeTrackingIdentifier)
        },
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
        batch: (w) => [student(w, { uniqueStudentIdentifier: '7KQ3NHV8RN' })],
        expect: (results) => assert.deepEqual(results[0].accessPath, ['$.uniqueStudentIdentifier']),
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
      { name: 'INTOFF for a student living in NSW', batch: (w) => [student(w, { uniqueStudentIdentifier: 'INTOFF' })] },
    ],
  },
  BRTS01220: {
    passing: [{ name: 'postcodes in their states', batch: (w) => uploadsOf(w, 'student', 'location') }],
    failing: [
      {
        name: 'a Melbourne postcode in NSW',
        batch: (w) => [
          {
            segment: 'deliverylocation',
            body: { ...w.location, address: { ...w.location.address, postcode: '3000' } },
          },
        ],
        expect: (results) => assert.deepEqual(results[0].accessPath, ['$.address.postcode', '$.address.state']),
      },
      {
        name: 'OSPC with an Australian state',
        batch: (w) => [student(w, { postalAddress: { ...w.student.postalAddress, postcode: 'OSPC' } })],
      },
    ],
  },
  BRTS01240: {
    passing: [{ name: 'codes of the shipped datasets', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a country code not in SACC',
        batch: (w) => [student(w, { countryOfBirth: '9999' })],
        expect: (results) => {
          assert.deepEqual(results[0].accessPath, ['$.countryOfBirth'])
          assert.match(results[0].message, /reference dataset country/)
        },
      },
    ],
  },
  BRTS01300: {
    passing: [{ name: 'dates in order', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'activity ending before it starts',
        batch: (w) => [enrolmentWith(w, 'subjectEnrolment', { activityEndDate: '2026-10-01' })],
        expect: (results) => assert.deepEqual(results[0].accessPath, ['$.activityStartDate', '$.activityEndDate']),
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
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            activityEndDate: '2099-03-26',
            outcome: { outcomeIdentifierNational: 'Competency_achieved' },
          }),
        ],
      },
      {
        name: 'a cancellation dated in the future',
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
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Registered', studentActivityDate: '2099-01-10' }],
          }),
        ],
        expect: (results) => assert.deepEqual(results[0].accessPath, ['$.lifecycle[1].studentActivityDate']),
      },
    ],
  },
  BRTS01330: {
    passing: [{ name: 'activity from 2026', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'registration in 2025 (a Warning)',
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2025-11-03' }, commenced],
          }),
        ],
        expect: (results) => assert.equal(results[0].validationMessageLevel, 'Warning'),
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
        batch: (w) => [
          enrolmentWith(w, 'programEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Deferred', studentActivityDate: '2026-10-20' }],
          }),
        ],
        expect: (results) =>
          assert.deepEqual(results[0].accessPath, [
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentStatusReason',
          ]),
      },
    ],
  },
  BRTS01410: {
    passing: [{ name: 'subject enrolments that are not deferred', batch: (w) => allOf(w) }],
    failing: [
      {
        name: 'a deferred subject enrolment',
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
        batch: (w) => [
          enrolmentWith(w, 'subjectEnrolment', {
            lifecycle: [commenced, { studentStatus: 'Registered', studentActivityDate: '2026-10-20' }],
          }),
        ],
        expect: (results) => {
          assert.equal(results[0].validationMessageLevel, 'Warning')
          assert.deepEqual(results[0].accessPath, [
            '$.lifecycle[1].studentStatus',
            '$.lifecycle[1].studentActivityDate',
          ])
        },
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
        batch: (w) => uploadsOf(w, 'student', 'location', 'program', 'programOffering', 'programEnrolment'),
      },
      {
        name: 'voiding the only subject enrolment of a held program enrolment',
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
        expect: (results, w) => {
          assert.deepEqual(
            results
              .map((r) => `${r.resourceType} ${r.resourceUID} ${r.accessPath} ${r.relatedValidationResultCount}`)
              .sort(),
            [
              `ProgramEnrolment ${uidOf(w.programEnrolment)} $.programEnrolmentUID 2`,
              `SubjectEnrolment ${uidOf(w.subjectEnrolmentInProgram)} $.programEnrolmentUID 2`,
            ],
          )
        },
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
        batch: (w) => uploadsOf(w, 'subjectEnrolment'),
        expect: (results) =>
          assert.deepEqual(results.map((r) => r.accessPath[0]).sort(), [
            '$.locations[0].deliveryLocationUID',
            '$.studentUID',
            '$.subjectOfferingUID',
          ]),
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
        batch: (w) => [{ segment: 'student', body: voided(w.student, 'remove_duplicate_record') }],
        expect: (results, w) => assert.equal(results[0].resourceUID, uidOf(w.student)),
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
