// Golden cases of every data quality assessment rule: held data that must pass a rule and held data
// that must fail it. test/assessment-rules.test.ts submits each case's data for an RTO of its own,
// assesses the period, and fails when a rule in the catalogue has no cases here.
import assert from 'node:assert/strict'
import type { Upload } from '../support/reporting.ts'
import { allOf, uidOf, uploadsOf, world, type World } from '../support/world.ts'

export interface AssessmentCase {
  name: string
  /** Batches submitted (each validated without blocking results) before the assessment, by the RTO's first client. */
  submitted: (w: World, extra: World) => Upload[][]
  /** Batches submitted by a second client of the same RTO. */
  submittedByOtherClient?: (w: World, extra: World) => Upload[][]
  /** The period assessed: the examples' 202604 unless given. */
  period?: () => number
}

/** One outcome a failing case expects: the record's type and UID. */
export type ExpectedOutcome = [resourceType: string, resourceUID: string]

export interface FailingAssessmentCase extends AssessmentCase {
  /** Every outcome of the rule the assessment must report, no more and no fewer (in any order). */
  results: (w: World, extra: World) => ExpectedOutcome[]
  /** Further checks of the rule's outcomes: a message, a group. */
  expect?: (results: any[], w: World, extra: World) => void
}

export interface AssessmentCases {
  passing: AssessmentCase[]
  failing: FailingAssessmentCase[]
}

type Body = Record<string, any>
const upload = (segment: string, body: Body): Upload => ({ segment, body })
const subjectEnrolment = (w: World, changes: Body): Upload =>
  upload('subjectenrolment', { ...w.subjectEnrolment, ...changes })
const inProgram = (w: World, changes: Body): Upload =>
  upload('subjectenrolment', { ...w.subjectEnrolmentInProgram, ...changes })
const programEnrolment = (w: World, changes: Body): Upload =>
  upload('programenrolment', { ...w.programEnrolment, ...changes })
const base = (w: World): Upload[] => uploadsOf(w, 'student', 'location', 'subject', 'subjectOffering')
const programBase = (w: World): Upload[] => [...base(w), ...uploadsOf(w, 'program', 'programOffering')]
const achieved = { outcome: { outcomeIdentifierNational: 'Competency_achieved' } }
const everything = (w: World) => [allOf(w)]

/** The other world's student as a different person with a USI of their own. */
const withOwnUsi = (extra: World): Upload[] => [
  upload('student', { ...extra.student, uniqueStudentIdentifier: 'BNGH7C75FN' }),
  ...allOf(extra).slice(1),
]

export { world }

const oneGroupOf = (count: number) => (results: any[]) => {
  assert.equal(results.length, count, JSON.stringify(results))
  assert.equal(new Set(results.map((r) => r.AssessmentGroupingId)).size, 1, 'one concern, one AssessmentGroupingId')
}

export const assessmentCases: Record<string, AssessmentCases> = {
  DQTS10010: {
    passing: [{ name: 'a commenced program with subject activity in the period', submitted: everything }],
    failing: [
      {
        name: 'a program commenced in July whose only subject ended in September',
        results: (w) => [['ProgramEnrolment', uidOf(w.programEnrolment)]],
        submitted: (w) => [
          [
            ...programBase(w),
            programEnrolment(w, {
              commencementDate: '2026-07-01',
              lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '2026-07-01' }],
            }),
            inProgram(w, {
              activityStartDate: '2026-07-01',
              activityEndDate: '2026-09-20',
              lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '2026-07-01' }],
              ...achieved,
            }),
          ],
        ],
        expect: (results, w) => {
          assert.equal(results[0].changeTrackingIdentifier, w.programEnrolment.changeTrackingIdentifier)
          assert.equal(results[0].dataOwner, true)
        },
      },
    ],
  },
  DQTS10020: {
    passing: [{ name: 'a subject enrolment commenced when training started', submitted: everything }],
    failing: [
      {
        name: 'still Registered months after training started in July',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment)]],
        submitted: (w) => [
          [
            ...base(w),
            subjectEnrolment(w, {
              activityStartDate: '2026-07-01',
              lifecycle: [{ studentStatus: 'Registered', studentActivityDate: '2026-06-20' }],
            }),
          ],
        ],
      },
    ],
  },
  DQTS10030: {
    passing: [{ name: 'commenced on the activity start date', submitted: everything }],
    failing: [
      {
        name: 'commenced before training starts',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment)]],
        submitted: (w) => [[...base(w), subjectEnrolment(w, { activityStartDate: '2026-10-20' })]],
      },
    ],
  },
  DQTS10040: {
    passing: [{ name: 'scheduled hours equal to nominal hours', submitted: everything }],
    failing: [
      {
        name: '10 scheduled hours against 50 nominal hours',
        results: (w) => [
          ['Subject', uidOf(w.subject)],
          ['SubjectEnrolment', uidOf(w.subjectEnrolment)],
        ],
        submitted: (w) => [
          [
            ...base(w),
            subjectEnrolment(w, {
              scheduledHours: 10,
              locations: [{ deliveryLocationUID: w.location.deliveryLocationUID, hoursAtLocation: 10 }],
            }),
          ],
        ],
        expect: oneGroupOf(2),
      },
    ],
  },
  DQTS10050: {
    passing: [{ name: 'two students with USIs of their own', submitted: (w, extra) => [allOf(w), withOwnUsi(extra)] }],
    failing: [
      {
        name: 'two student records with one USI',
        results: (w, extra) => [
          ['Student', uidOf(w.student)],
          ['Student', uidOf(extra.student)],
        ],
        submitted: (w, extra) => [allOf(w), allOf(extra)],
        expect: oneGroupOf(2),
      },
    ],
  },
  DQTS10060: {
    passing: [
      {
        name: 'different people reported by two clients',
        submitted: everything,
        submittedByOtherClient: (_w, extra) => [withOwnUsi(extra)],
      },
    ],
    failing: [
      {
        name: 'one person reported by two clients under two UIDs',
        results: (w, extra) => [
          ['Student', uidOf(extra.student)],
          ['Student', uidOf(w.student)],
        ],
        submitted: everything,
        submittedByOtherClient: (w, extra) => [
          [
            upload('student', {
              ...extra.student,
              familyName: w.student.familyName,
              uniqueStudentIdentifier: 'BNGH7C75FN',
            }),
            ...allOf(extra).slice(1),
          ],
        ],
        expect: (results, w, extra) => {
          oneGroupOf(2)(results)
          // Read by the first client: it owns its own student's version, not the other client's.
          assert.equal(results.find((r) => r.resourceUID === w.student.studentUID).dataOwner, true)
          assert.equal(results.find((r) => r.resourceUID === extra.student.studentUID).dataOwner, false)
        },
      },
    ],
  },
  DQTS10070: {
    passing: [
      {
        name: 'a completed program with an achieved subject',
        submitted: (w) => [
          [
            ...programBase(w),
            programEnrolment(w, {
              programCompletion: { dateProgramCompleted: '2026-10-20', isParchmentIssued: false },
            }),
            inProgram(w, { activityEndDate: '2026-10-20', ...achieved }),
          ],
        ],
      },
    ],
    failing: [
      {
        name: 'a completed program whose subject has no outcome',
        results: (w) => [['ProgramEnrolment', uidOf(w.programEnrolment)]],
        submitted: (w) => [
          [
            ...programBase(w),
            programEnrolment(w, {
              programCompletion: { dateProgramCompleted: '2026-10-20', isParchmentIssued: false },
            }),
            inProgram(w, {}),
          ],
        ],
      },
    ],
  },
  DQTS10080: {
    passing: [{ name: 'a student submitted with an enrolment in the period', submitted: everything }],
    failing: [
      {
        name: 'a student submitted this period with no enrolment',
        results: (w) => [['Student', uidOf(w.student)]],
        period: () => currentPeriod(),
        submitted: (w) => [uploadsOf(w, 'student')],
      },
    ],
  },
  DQTS10090: {
    passing: [{ name: 'a student aged 25', submitted: everything }],
    failing: [
      {
        name: 'a date of birth in 2022',
        results: (w) => [['Student', uidOf(w.student)]],
        submitted: (w) => [[upload('student', { ...w.student, dateOfBirth: '2022-01-01' }), ...allOf(w).slice(1)]],
      },
    ],
  },
  DQTS10100: {
    passing: [
      { name: 'training still under way', submitted: everything },
      {
        name: 'training ended with an outcome',
        submitted: (w) => [
          [
            ...base(w),
            subjectEnrolment(w, {
              activityStartDate: '2026-07-01',
              activityEndDate: '2026-10-10',
              lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '2026-07-01' }],
              ...achieved,
            }),
          ],
        ],
      },
    ],
    failing: [
      {
        name: 'training ended in early October, no outcome',
        results: (w) => [['SubjectEnrolment', uidOf(w.subjectEnrolment)]],
        submitted: (w) => [
          [
            ...base(w),
            subjectEnrolment(w, {
              activityStartDate: '2026-07-01',
              activityEndDate: '2026-10-10',
              lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '2026-07-01' }],
            }),
          ],
        ],
      },
    ],
  },
  DQTS10110: {
    passing: [{ name: 'the subject starts the day the program commences', submitted: everything }],
    failing: [
      {
        name: 'the subject starts before the program commenced',
        results: (w) => [
          ['ProgramEnrolment', uidOf(w.programEnrolment)],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram)],
        ],
        submitted: (w) => [
          [...programBase(w), programEnrolment(w, {}), inProgram(w, { activityStartDate: '2026-10-01' })],
        ],
        expect: oneGroupOf(2),
      },
    ],
  },
  DQTS10120: {
    passing: [{ name: 'a commenced program with a commenced subject', submitted: everything }],
    failing: [
      {
        name: 'a program cancelled in November with its subject still Commenced',
        results: (w) => [
          ['ProgramEnrolment', uidOf(w.programEnrolment)],
          ['SubjectEnrolment', uidOf(w.subjectEnrolmentInProgram)],
        ],
        submitted: (w) => [
          [
            ...programBase(w),
            programEnrolment(w, {
              lifecycle: [
                { studentStatus: 'Commenced', studentActivityDate: '2026-10-05' },
                {
                  studentStatus: 'Cancelled',
                  studentActivityDate: '2026-11-01',
                  studentStatusReason: 'Formal_withdrawal',
                },
              ],
            }),
            inProgram(w, {}),
          ],
        ],
        expect: oneGroupOf(2),
      },
    ],
  },
}

/** A program cancelled in November whose subject enrolment stays Commenced (DQTS10120's failing case). */
export const cancelledProgramWithActiveSubject = (w: World): Upload[][] =>
  assessmentCases.DQTS10120!.failing[0]!.submitted(w, w)

/** Two student records with one USI (DQTS10050's failing case, the blocking one). */
export const twoStudentsOneUsi = (w: World, extra: World): Upload[][] =>
  assessmentCases.DQTS10050!.failing[0]!.submitted(w, extra)

function currentPeriod(): number {
  const today = new Date().toISOString().slice(0, 10)
  return Number(today.slice(0, 4)) * 100 + Math.ceil(Number(today.slice(5, 7)) / 3)
}
