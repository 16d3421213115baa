// DQTS10090 (Warning): an age outside what vocational training sees is almost always a mistyped
// date of birth (the year of enrolment, or a swapped century).
import { sql } from 'kysely'
import { defineAssessmentRule, type AssessmentFindingRow } from '../assessment-rule.ts'
import { studentsInPeriod } from './sql.ts'

export const PLAUSIBLE_AGE = { min: 10, max: 90 }

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10090',
  ruleId: 'DQBR00109',
  level: 'Warning',
  resourceTypes: ['Student'],
  title: "A student's age is plausible",
  description: `A student enrolled in the period is at least ${PLAUSIBLE_AGE.min} and at most ${PLAUSIBLE_AGE.max} years old on the first day of the period, by dateOfBirth.`,
  correctiveAction: 'Correct dateOfBirth; if it is right, nothing needs to change.',
  query: (scope) => sql<AssessmentFindingRow>`
    SELECT st.uid::text AS group_key, 'Student' AS resource_type, st.uid AS resource_uid,
           st.ctid AS change_tracking_identifier, st.client AS submitted_by_client,
           format('dateOfBirth %s makes the student %s years old on %s.', st.body->>'dateOfBirth', a.years, ${scope.periodStart}::text) AS message
      FROM ${studentsInPeriod(scope)} AS st
      CROSS JOIN LATERAL (SELECT extract(year FROM age(${scope.periodStart}::date, (st.body->>'dateOfBirth')::date))::int AS years) AS a
     WHERE st.body->>'dateOfBirth' IS NOT NULL
       AND (a.years < ${PLAUSIBLE_AGE.min}::int OR a.years > ${PLAUSIBLE_AGE.max}::int)`,
})
