// BRTS01320: lifecycle activity is reported for a reporting period that has begun: no state is dated
// in a quarter after the current one (spec: Limits, supported reporting periods up to the current quarter).
import { firstDayOf, reportingPeriodOf } from '../../../domain/reporting-period.ts'
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01320',
  ruleId: 'BRDG00032',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'Activity is not dated in a future reporting period',
  description:
    'Every lifecycle studentActivityDate falls in the current reporting period (calendar quarter, UTC) or an earlier one.',
  correctiveAction: 'Report the lifecycle state in the reporting period in which it takes effect.',
  check: (record, _type, { today }) => {
    const current = reportingPeriodOf(today)
    return record.lifecycle.flatMap((state, i) => {
      const period = reportingPeriodOf(state.studentActivityDate)
      return period > current
        ? [
            finding(
              [`$.lifecycle[${i}].studentActivityDate`],
              `${state.studentStatus} on ${state.studentActivityDate} falls in reporting period ${period}, after the current period ${current} (which began ${firstDayOf(current)}).`,
            ),
          ]
        : []
    })
  },
})
