// BRTS01330 (Warning): activity dated before the first supported reporting period (202601, spec:
// Limits) is accepted as history, but it is reported in no period the service assesses.
import { FIRST_REPORTING_PERIOD, firstDayOf, reportingPeriodOf } from '../../../domain/reporting-period.ts'
import { defineRecordRule, finding } from '../rule.ts'

export default defineRecordRule({
  technicalRuleId: 'BRTS01330',
  ruleId: 'BRDG00033',
  level: 'Warning',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'Activity before the first reporting period',
  description: `A lifecycle studentActivityDate before ${firstDayOf(FIRST_REPORTING_PERIOD)} falls before the first supported reporting period ${FIRST_REPORTING_PERIOD}; it is kept as history but no data quality assessment or declaration covers it.`,
  correctiveAction: 'Check the date; nothing needs to change if the state really took effect then.',
  check: (record) =>
    record.lifecycle.flatMap((state, i) =>
      reportingPeriodOf(state.studentActivityDate) < FIRST_REPORTING_PERIOD
        ? [
            finding(
              [`$.lifecycle[${i}].studentActivityDate`],
              `${state.studentStatus} on ${state.studentActivityDate} is before the first reporting period ${FIRST_REPORTING_PERIOD}.`,
            ),
          ]
        : [],
    ),
})
