// BRTS01310: what has finished cannot be dated after today (domain notes: the end date of a final
// outcome must not be in the future). A cancellation, a final subject outcome's end date, and a
// program completion or parchment issue are final.
import { defineRecordRule, finding, type Finding } from '../rule.ts'

/** Outcomes that say the subject is still under way; every other outcome is final. */
const NOT_FINAL = new Set(['Continuing', 'Not_yet_started'])

export default defineRecordRule({
  technicalRuleId: 'BRTS01310',
  ruleId: 'BRDG00031',
  level: 'Error',
  resourceTypes: ['ProgramEnrolment', 'SubjectEnrolment'],
  title: 'A final state is not dated in the future',
  description:
    "A Cancelled lifecycle state, the activity end date of a subject with a final outcome, and a program's completion and parchment issue dates are on or before today (UTC).",
  correctiveAction: 'Report the final state only once it has happened, with the date it happened.',
  check: (record, resourceType, { today }) => {
    const findings: Finding[] = record.lifecycle.flatMap((state, i) =>
      state.studentStatus === 'Cancelled' && state.studentActivityDate > today
        ? [
            finding(
              [`$.lifecycle[${i}].studentActivityDate`],
              `Cancelled is dated ${state.studentActivityDate}, after today (${today}).`,
            ),
          ]
        : [],
    )
    if (resourceType === 'SubjectEnrolment') {
      const enrolment = record as typeof record & {
        outcome?: { outcomeIdentifierNational: string }
        activityEndDate: string
      }
      const outcome = enrolment.outcome?.outcomeIdentifierNational
      if (outcome && !NOT_FINAL.has(outcome) && enrolment.activityEndDate > today) {
        findings.push(
          finding(
            ['$.outcome.outcomeIdentifierNational', '$.activityEndDate'],
            `outcome ${outcome} is final but activityEndDate ${enrolment.activityEndDate} is after today (${today}).`,
          ),
        )
      }
    } else {
      const completion = (
        record as { programCompletion?: { dateProgramCompleted: string; parchmentIssueDate?: string } }
      ).programCompletion
      for (const [field, date] of [
        ['dateProgramCompleted', completion?.dateProgramCompleted],
        ['parchmentIssueDate', completion?.parchmentIssueDate],
      ] as const) {
        if (date && date > today)
          findings.push(
            finding([`$.programCompletion.${field}`], `programCompletion.${field} ${date} is after today (${today}).`),
          )
      }
    }
    return findings
  },
})
