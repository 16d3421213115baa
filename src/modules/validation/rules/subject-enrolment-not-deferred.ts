// BRTS01410: a subject enrolment cannot be deferred (spec: Enrolment lifecycle, rules).
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01410',
  ruleId: 'BRDG00041',
  level: 'Error',
  resourceTypes: ['SubjectEnrolment'],
  title: 'A subject enrolment is never Deferred',
  description: "Only a program enrolment can be deferred; a subject enrolment's lifecycle has no Deferred state.",
  correctiveAction: 'Remove the Deferred state; cancel the subject enrolment instead, or defer its program enrolment.',
  check: (enrolment) =>
    enrolment.lifecycle.flatMap((state, i) =>
      state.studentStatus === 'Deferred'
        ? [
            finding(
              [`$.lifecycle[${i}].studentStatus`],
              `the subject enrolment is Deferred on ${state.studentActivityDate}.`,
            ),
          ]
        : [],
    ),
})
