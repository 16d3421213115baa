// BRTS01400: a program enrolment is Deferred only with a deferral reason (spec: Enrolment lifecycle;
// studentActivityDate is required of every state by the upload schema already).
import { codeLists } from '../../resources/index.ts'
import { defineRecordRule, finding } from '../rule.ts'

const DEFERRAL_REASONS: readonly string[] = codeLists.deferralReasons

export default defineRecordRule({
  technicalRuleId: 'BRTS01400',
  ruleId: 'BRDG00040',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment'],
  title: 'A deferral has a deferral reason',
  description: `A Deferred lifecycle state of a program enrolment carries a deferral studentStatusReason (${DEFERRAL_REASONS.join(', ')}).`,
  correctiveAction: `Give studentStatusReason ${DEFERRAL_REASONS.join(' or ')} with the Deferred state.`,
  check: (enrolment) =>
    enrolment.lifecycle.flatMap((state, i) =>
      state.studentStatus === 'Deferred' && !DEFERRAL_REASONS.includes(state.studentStatusReason ?? '')
        ? [
            finding(
              [`$.lifecycle[${i}].studentStatus`, `$.lifecycle[${i}].studentStatusReason`],
              `Deferred on ${state.studentActivityDate} has studentStatusReason ${state.studentStatusReason ?? 'not given'}, not a deferral reason.`,
            ),
          ]
        : [],
    ),
})
