// Subjects to NAT00060. Its release 8.0 layout has no subject flag: the API's subjectType is not written.
import type { NatValues } from '../../layouts/index.ts'
import { defined } from '../objects.ts'
import { digits, type ExportContext, yesNo } from './context.ts'

export function subjectsToNat(context: ExportContext): NatValues<'NAT00060'>[] {
  return [...context.byUid.Subject.values()].map((subject) =>
    defined({
      subjectIdentifier: subject.subjectIdentifier,
      subjectName: subject.subjectName,
      subjectFieldOfEducationIdentifier: subject.subjectFieldOfEducation,
      vetFlag: yesNo(subject.vocationalTrainingIndicator),
      nominalHours: digits(subject.nominalHours),
    }),
  )
}
