// Program and subject offerings, which AVETMISS does not have: the API links each enrolment to an
// offering (a run of a program or subject), so the mapping derives them from the activity that names
// them. One program offering per program; one subject offering per subject, program (or none) and
// delivery location. No dates: the NAT files say nothing of runs, and dates taken from whichever
// file set was imported last would change the offering at each import of another period.
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { ImportContext } from './context.ts'
import { allByKey } from './grouping.ts'
import type { Activity } from './subject-enrolments.ts'

/** The offerings the activities name, each from its first activity (its other lines listed after it). */
export function offeringsFrom(
  context: ImportContext,
  activities: readonly Activity[],
): { programOfferings: MappedRecordOf<'ProgramOffering'>[]; subjectOfferings: MappedRecordOf<'SubjectOffering'>[] } {
  const { keys } = context
  const programOfferings = [
    ...allByKey(
      activities.filter((activity) => activity.key.programIdentifier !== ''),
      (activity) => activity.key.programIdentifier,
    ).values(),
  ].map((named): MappedRecordOf<'ProgramOffering'> => {
    const first = named[0]!
    const origin = originOf(named)
    origin.field('programOfferingUID', first.row, 'programIdentifier')
    origin.field('programUID', first.row, 'programIdentifier')
    const uid = keys.programOffering(first.key.programIdentifier)
    return {
      resourceType: 'ProgramOffering',
      uid,
      record: { programOfferingUID: uid, programUID: keys.program(first.key.programIdentifier) },
      origin: origin.build(),
    }
  })

  const subjectOfferings = [
    ...allByKey(activities, ({ key }) =>
      [key.subjectIdentifier, key.programIdentifier, key.deliveryLocationIdentifier].join('\u0000'),
    ).values(),
  ].map((named): MappedRecordOf<'SubjectOffering'> => {
    const { row, key } = named[0]!
    const origin = originOf(named)
    origin.field('subjectOfferingUID', row, 'subjectIdentifier')
    origin.field('subjectUID', row, 'subjectIdentifier')
    origin.field('deliveryLocationUID', row, 'deliveryLocationIdentifier')
    if (key.programIdentifier) origin.field('programOfferingUID', row, 'programIdentifier')
    const uid = keys.subjectOffering(key.subjectIdentifier, key.programIdentifier, key.deliveryLocationIdentifier)
    return {
      resourceType: 'SubjectOffering',
      uid,
      record: defined({
        subjectOfferingUID: uid,
        subjectUID: keys.subject(key.subjectIdentifier),
        programOfferingUID: key.programIdentifier ? keys.programOffering(key.programIdentifier) : undefined,
        deliveryLocationUID: keys.deliveryLocation(key.deliveryLocationIdentifier),
      }),
      origin: origin.build(),
    }
  })
  return { programOfferings, subjectOfferings }
}

function originOf(named: readonly Activity[]): OriginBuilder {
  const origin = new OriginBuilder(named[0]!.row)
  for (const activity of named.slice(1)) origin.append(activity.row)
  return origin
}
