// BRTS01180 (business rule BRDG00017), given by the specification (Errors): a student available for
// surveys must give a primary email address; the access paths name both attributes.
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01180',
  ruleId: 'BRDG00017',
  level: 'Error',
  resourceTypes: ['Student'],
  title: 'A student available for surveys needs a primary email address',
  description:
    'When surveyAvailability is Available, emailAddressPrimary must be given, since surveys reach students by email.',
  correctiveAction: 'Provide a value for emailAddressPrimary.',
  check: (student) =>
    student.surveyAvailability === 'Available' && !student.emailAddressPrimary
      ? [
          finding(
            ['$.surveyAvailability', '$.emailAddressPrimary'],
            'surveyAvailability is Available but emailAddressPrimary is not given.',
          ),
        ]
      : [],
})
