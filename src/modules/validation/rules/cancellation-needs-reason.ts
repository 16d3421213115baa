// BRTS01420: a Cancelled state carries a cancellation reason (spec: Enrolment lifecycle).
import { codeLists } from '../../resources/index.ts'
import { defineRecordRule, finding } from '../rule.ts'

const CANCELLATION_REASONS: readonly string[] = codeLists.cancellationReasons

export default defineRecordRule({
  technicalRuleId: 'BRTS01420',
  ruleId: 'BRDG00042',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'A cancellation has a cancellation reason',
  description: `A Cancelled lifecycle state carries a cancellation studentStatusReason (${CANCELLATION_REASONS.join(', ')}).`,
  correctiveAction: `Give studentStatusReason ${CANCELLATION_REASONS.join(' or ')} with the Cancelled state.`,
  check: (enrolment) =>
    enrolment.lifecycle.flatMap((state, i) =>
      state.studentStatus === 'Cancelled' && !CANCELLATION_REASONS.includes(state.studentStatusReason ?? '')
        ? [
            finding(
              [`$.lifecycle[${i}].studentStatus`, `$.lifecycle[${i}].studentStatusReason`],
              `Cancelled on ${state.studentActivityDate} has studentStatusReason ${state.studentStatusReason ?? 'not given'}, not a cancellation reason.`,
            ),
          ]
        : [],
    ),
})
