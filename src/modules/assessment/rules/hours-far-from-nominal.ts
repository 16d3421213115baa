// DQTS10040 (Warning): scheduled hours far from the subject's nominal hours usually mean a typing
// error in one of them (minutes for hours, a missing digit). The subject and the enrolment are one
// concern: either may be the one to correct.
import { sql, type RawBuilder } from 'kysely'
import {
  defineAssessmentRule,
  type AssessmentFindingRow,
  type AssessmentScope,
  type StageSlice,
} from '../assessment-rule.ts'
import { joinHeldByUid, subjectEnrolmentsInPeriod } from './sql.ts'

export const HOURS_RATIO = { low: 0.5, high: 2 }

export default defineAssessmentRule({
  technicalRuleId: 'DQTS10040',
  ruleId: 'DQBR00104',
  level: 'Warning',
  resourceTypes: ['SubjectEnrolment', 'Subject'],
  title: "Scheduled hours are near the subject's nominal hours",
  description: `A subject enrolment of the period that is delivered (predominantDeliveryMode is not Not_applicable) has scheduledHours between ${HOURS_RATIO.low} and ${HOURS_RATIO.high} times the nominalHours of its subject (through its subject offering), when both are given and nominalHours is above 0. The enrolment and the subject are reported together.`,
  correctiveAction:
    'Check scheduledHours of the subject enrolment and nominalHours of the subject, and correct the one that is wrong; if both are right, nothing needs to change.',
  query: (scope) => findings(scope),
  // A group is one subject enrolment of the period (and what it names, looked up by UID): in key slices
  // of the staged subject enrolments on a working copy (issue 30).
  sliced: { type: 'SubjectEnrolment', query: findings },
})

function findings(scope: AssessmentScope, slice?: StageSlice): RawBuilder<AssessmentFindingRow> {
  return sql<AssessmentFindingRow>`
    WITH far AS (
      SELECT se.uid AS se_uid, se.ctid AS se_ctid, se.client AS se_client, s.uid AS s_uid, s.ctid AS s_ctid, s.client AS s_client,
             (se.body->>'scheduledHours')::numeric AS scheduled, (s.body->>'nominalHours')::numeric AS nominal
        FROM ${subjectEnrolmentsInPeriod(scope, slice)} AS se
        ${joinHeldByUid(scope, 'SubjectOffering', 'so', sql`(se.body->>'subjectOfferingUID')::uuid`, slice)}
        ${joinHeldByUid(scope, 'Subject', 's', sql`(so.body->>'subjectUID')::uuid`, slice)}
       WHERE se.body->>'predominantDeliveryMode' <> 'Not_applicable'
         AND se.body->>'scheduledHours' IS NOT NULL AND (s.body->>'nominalHours')::numeric > 0
         AND ((se.body->>'scheduledHours')::numeric < (s.body->>'nominalHours')::numeric * ${HOURS_RATIO.low}::numeric
              OR (se.body->>'scheduledHours')::numeric > (s.body->>'nominalHours')::numeric * ${HOURS_RATIO.high}::numeric))
    SELECT se_uid::text AS group_key, 'SubjectEnrolment' AS resource_type, se_uid AS resource_uid, se_ctid AS change_tracking_identifier,
           se_client AS submitted_by_client, format('scheduledHours %s against nominalHours %s of its subject.', scheduled, nominal) AS message
      FROM far
    UNION ALL
    SELECT se_uid::text, 'Subject', s_uid, s_ctid, s_client, format('nominalHours %s against scheduledHours %s of subject enrolment %s.', nominal, scheduled, se_uid)
      FROM far`
}
