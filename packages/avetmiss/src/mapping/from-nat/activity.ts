// NAT00120 training activity and NAT00130 program completions to the four resources derived from
// them: subject enrolments (one per activity line), the program enrolments and offerings they belong
// to, and the completions of those program enrolments.
import type { NatRecord, NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { checkOrganisation, labelOf, type ImportContext, missingBecauseUnread, notRead, report } from './context.ts'
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
  const known = referencesOf(records)
  const activities: Activity[] = []
  for (const row of lines.values()) {
    checkOrganisation(context, row)
    checkReferences(context, row, known)
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

/** What a NAT00120 line names must be in the set: its file, the identifiers it holds, and what it is. */
const REFERENCES = [
  { field: 'deliveryLocationIdentifier', fileId: 'NAT00020', fileIds: ['NAT00020'], what: 'Delivery location' },
  { field: 'clientIdentifier', fileId: 'NAT00080', fileIds: ['NAT00080'], what: 'Client' },
  { field: 'subjectIdentifier', fileId: 'NAT00060', fileIds: ['NAT00060'], what: 'Subject' },
  {
    field: 'programIdentifier',
    fileId: 'NAT00030 or NAT00030A',
    fileIds: ['NAT00030', 'NAT00030A'],
    what: 'Program',
  },
] as const

type Known = Record<(typeof REFERENCES)[number]['field'], ReadonlySet<string>>

function referencesOf(records: NatRecordSet): Known {
  const identifiers = <R extends NatRecord>(rows: readonly R[], id: (row: R) => string | undefined) =>
    new Set(rows.map(id).filter((value) => value !== undefined))
  return {
    deliveryLocationIdentifier: identifiers(records.NAT00020, (row) => row.values.deliveryLocationIdentifier),
    clientIdentifier: identifiers(records.NAT00080, (row) => row.values.clientIdentifier),
    subjectIdentifier: identifiers(records.NAT00060, (row) => row.values.subjectIdentifier),
    programIdentifier: new Set([
      ...identifiers(records.NAT00030, (row) => row.values.programIdentifier),
      ...identifiers(records.NAT00030A, (row) => row.values.programIdentifier),
    ]),
  }
}

/**
 * A line naming a location, client, subject or program the set does not have (AVS checks each) is
 * reported at that field. The line is still carried: what it names may be held already, and the
 * service's reference check decides.
 */
function checkReferences(context: ImportContext, row: NatRecord<'NAT00120'>, known: Known): void {
  for (const { field, fileId, fileIds, what } of REFERENCES) {
    const value = row.values[field]
    if (value === undefined || known[field].has(value)) continue
    // A file not read at all (release 7.0) is one problem of its own, not one per line naming it.
    if (notRead(context, fileIds)) continue
    const unread = missingBecauseUnread(context, fileIds, field, `${what.toLowerCase()} ${value}`)
    if (unread) {
      report(context, row, field, `${unread.message}; the activity is carried and refers to it`, unread.action)
      continue
    }
    report(
      context,
      row,
      field,
      `${what} ${value} is not in ${fileId}; the activity is carried and refers to a record the set does not have`,
      `In the SMS, include ${what.toLowerCase()} ${value} in the ${fileId} export, or correct the ${labelOf(row.fileId, field)} on this activity; a record held from an earlier submission is also fine.`,
    )
  }
}
