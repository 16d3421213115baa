// BRTS01300: an end date is not before its start date (domain notes: AVS 3216, activity end date
// before activity start date), for every pair of dates the resources carry.
import type { ResourceType } from '../../../domain/resource-types.ts'
import { defineRecordRule, finding } from '../rule.ts'

// [earlier, later] field paths that must be in order when both are given.
const PAIRS: Partial<Record<ResourceType, readonly (readonly [string, string])[]>> = {
  SubjectEnrolment: [['activityStartDate', 'activityEndDate']],
  ProgramEnrolment: [
    ['commencementDate', 'expectedCompletionDate'],
    ['commencementDate', 'programCompletion.dateProgramCompleted'],
    ['programCompletion.dateProgramCompleted', 'programCompletion.parchmentIssueDate'],
  ],
  ProgramOffering: [['startDate', 'endDate']],
  SubjectOffering: [['startDate', 'endDate']],
}

function at(record: unknown, path: string): string | undefined {
  let value: unknown = record
  for (const key of path.split('.'))
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
  return typeof value === 'string' ? value : undefined
}

export default defineRecordRule({
  technicalRuleId: 'BRTS01300',
  ruleId: 'BRDG00030',
  level: 'Error',
  resourceTypes: ['SubjectEnrolment', 'ProgramEnrolment', 'ProgramOffering', 'SubjectOffering'],
  title: 'End dates are not before start dates',
  description:
    "An activity end date is not before the activity start date; a program's expected completion, completion and parchment issue dates are not before its commencement; an offering ends on or after it starts.",
  correctiveAction: 'Correct whichever of the two dates is wrong so that the later one is on or after the earlier one.',
  check: (record, resourceType) =>
    (PAIRS[resourceType] ?? []).flatMap(([earlierPath, laterPath]) => {
      const earlier = at(record, earlierPath)
      const later = at(record, laterPath)
      return earlier && later && later < earlier
        ? [
            finding(
              [`$.${earlierPath}`, `$.${laterPath}`],
              `${laterPath} ${later} is before ${earlierPath} ${earlier}.`,
            ),
          ]
        : []
    }),
})
