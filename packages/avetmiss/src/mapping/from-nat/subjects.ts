// Subjects from NAT00060.
import type { NatRecord, NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { SubjectRecord } from '../resource-records.ts'
import type { ImportContext } from './context.ts'
import { NatFieldReader } from './field-reader.ts'
import { firstByKey } from './grouping.ts'

const FIELD_OF_EDUCATION = /^\d{6}$/

export function subjectsFromNat(context: ImportContext, records: NatRecordSet): MappedRecordOf<'Subject'>[] {
  const subjects = firstByKey(
    context,
    records.NAT00060,
    (row) => row.values.subjectIdentifier ?? '',
    (id) => `Subject ${id}`,
  )
  return [...subjects.values()].flatMap((row) => {
    const mapped = subjectFrom(context, row)
    return mapped ? [mapped] : []
  })
}

/** NAT00060 of release 8.0 has no subject flag, so the API's subjectType is left out. */
function subjectFrom(context: ImportContext, row: NatRecord<'NAT00060'>): MappedRecordOf<'Subject'> | undefined {
  const origin = new OriginBuilder(row)
  const r = new NatFieldReader(context, row, origin)
  const uid = context.keys.subject(r.raw('subjectIdentifier')!)
  r.from('subjectUID', 'subjectIdentifier')
  const vocationalTrainingIndicator = r.requiredFlag('vetFlag', 'vocationalTrainingIndicator', 'subject')
  if (vocationalTrainingIndicator === undefined) return undefined
  const subject: SubjectRecord = {
    subjectUID: uid,
    subjectIdentifier: r.text('subjectIdentifier', 'subjectIdentifier')!,
    subjectName: r.text('subjectName', 'subjectName')!,
    subjectFieldOfEducation: r.pattern(
      'subjectFieldOfEducationIdentifier',
      FIELD_OF_EDUCATION,
      'subjectFieldOfEducation',
    ),
    nominalHours: r.number('nominalHours', 'nominalHours')!,
    vocationalTrainingIndicator,
  }
  return { resourceType: 'Subject', uid, record: defined(subject), origin: origin.build() }
}
