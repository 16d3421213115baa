// NAT00120 training activity and NAT00130 program completions to the four resources derived from
// them: subject enrolments (one per activity line), the program enrolments and offerings they belong
// to, and the completions of those program enrolments.
import type { NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { checkOrganisation, type ImportContext, report } from './context.ts'
import { firstByKey } from './grouping.ts'
import { offeringsFrom } from './offerings.ts'
import { programEnrolmentsFrom } from './program-enrolments.ts'
import { type Activity, activityKeyOf, subjectEnrolmentFrom } from './subject-enrolments.ts'

export interface ActivityResources {
  programOfferings: MappedRecordOf<'ProgramOffering'>[]
  subjectOfferings: MappedRecordOf<'SubjectOffering'>[]
  programEnrolments: MappedRecordOf<'ProgramEnrolment'>[]
  subjectEnrolments: MappedRecordOf<'SubjectEnrolment'>[]
}

export function activityFromNat(context: ImportContext, records: NatRecordSet): ActivityResources {
  // The activity key identifies a subject enrolment; a second line with the same key would replace
  // the first under the same UID, so it is reported instead.
  const lines = firstByKey(
    context,
    records.NAT00120,
    (row) => Object.values(activityKeyOf(row)).join('\u0000'),
    () => 'The same activity (location, client, subject, program and start date)',
  )
  const activities: Activity[] = []
  for (const row of lines.values()) {
    checkOrganisation(context, row)
    if (!row.values.programIdentifier) {
      // These belong to a program enrolment in the API; a subject outside a program has none to hold them.
      for (const field of ['trainingContractIdentifier', 'clientIdentifierApprenticeships'] as const) {
        if (row.values[field] === undefined) continue
        report(
          context,
          row,
          field,
          `A subject enrolment outside a program has no program enrolment to carry the ${field === 'trainingContractIdentifier' ? 'training contract identifier' : 'apprenticeship client identifier'}; it is not carried`,
        )
      }
    }
    const activity = subjectEnrolmentFrom(context, row)
    if (activity) activities.push(activity)
  }
  return {
    ...offeringsFrom(context, activities),
    programEnrolments: programEnrolmentsFrom(context, activities, records.NAT00130),
    subjectEnrolments: activities.map((activity) => activity.enrolment),
  }
}
