// Programs from NAT00030A (with classifications) and NAT00030 (without).
import type { NatValues } from '../../layouts/index.ts'
import type { NatRecord, NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { ProgramRecord } from '../resource-records.ts'
import { type ImportContext, report } from './context.ts'
import { NatFieldReader } from './field-reader.ts'
import { firstByKey } from './grouping.ts'

const FIELD_OF_EDUCATION = /^\d{4}$/
const ANZSCO = /^\d{6}$/

const programOf = (row: NatRecord<'NAT00030' | 'NAT00030A'>) => row.values.programIdentifier ?? ''

/**
 * A program in both files is taken from NAT00030A, which says more; its NAT00030 line is reported
 * only when the name or nominal hours differ, since some systems write both files for every program.
 */
export function programsFromNat(context: ImportContext, records: NatRecordSet): MappedRecordOf<'Program'>[] {
  const classified = firstByKey(context, records.NAT00030A, programOf, (id) => `Program ${id}`)
  const plain = firstByKey(context, records.NAT00030, programOf, (id) => `Program ${id}`)
  const mapped: MappedRecordOf<'Program'>[] = []
  for (const row of classified.values()) {
    const program = programFrom(context, row)
    if (program) mapped.push(program)
  }
  for (const row of plain.values()) {
    const other = classified.get(programOf(row))
    if (!other) {
      const program = programFrom(context, row)
      if (program) mapped.push(program)
    } else if (
      other.values.programName !== row.values.programName ||
      Number(other.values.nominalHours) !== Number(row.values.nominalHours)
    ) {
      report(
        context,
        row,
        'programName',
        `Program ${programOf(row)} is also on NAT00030A line ${other.line} with another name or nominal hours; NAT00030A's is carried`,
      )
    }
  }
  return mapped
}

/**
 * NAT00030 is for programs listed on training.gov.au, which are nationally recognised VET: it has no
 * VET flag, so such a program is carried with vocationalTrainingIndicator true and no classifications.
 * A NAT00030 written at 130 characters (release 7.0 and state collections) has NAT00030A's
 * classifications at 115-130, and they are carried as NAT00030A's are.
 */
function programFrom(
  context: ImportContext,
  row: NatRecord<'NAT00030' | 'NAT00030A'>,
): MappedRecordOf<'Program'> | undefined {
  const origin = new OriginBuilder(row)
  const r = new NatFieldReader(context, row, origin)
  const identifier = r.raw('programIdentifier')!
  const uid = context.keys.program(identifier)
  r.from('programUID', 'programIdentifier')
  const common = {
    programUID: uid,
    programIdentifier: r.text('programIdentifier', 'programIdentifier')!,
    programName: r.text('programName', 'programName')!,
    nominalHours: r.number('nominalHours', 'nominalHours')!,
  }
  if (row.fileId === 'NAT00030' && (row.values as NatValues<'NAT00030A'>).vetFlag === undefined) {
    return {
      resourceType: 'Program',
      uid,
      record: { ...common, vocationalTrainingIndicator: true },
      origin: origin.build(),
    }
  }
  const a = r as NatFieldReader<'NAT00030A'>
  const vocationalTrainingIndicator = a.requiredFlag('vetFlag', 'vocationalTrainingIndicator', 'program')
  if (vocationalTrainingIndicator === undefined) return undefined
  const program: ProgramRecord = {
    ...common,
    programRecognition: a.code('programRecognitionIdentifier', 'program-recognition', 'programRecognition'),
    programLevelOfEducation: a.code(
      'programLevelOfEducationIdentifier',
      'program-level-of-education',
      'programLevelOfEducation',
    ),
    programFieldOfEducation: a.pattern(
      'programFieldOfEducationIdentifier',
      FIELD_OF_EDUCATION,
      'programFieldOfEducation',
    ),
    occupationCode: a.pattern('anzscoIdentifier', ANZSCO, 'occupationCode'),
    vocationalTrainingIndicator,
  }
  return { resourceType: 'Program', uid, record: defined(program), origin: origin.build() }
}
