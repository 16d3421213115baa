// Programs to NAT00030A, or to NAT00030 when the program lacks a classification NAT00030A requires.
import type { NatValues } from '../../layouts/index.ts'
import { defined } from '../objects.ts'
import type { ProgramRecord } from '../resource-records.ts'
import { digits, type ExportContext, yesNo } from './context.ts'

export interface ProgramLines {
  NAT00030: NatValues<'NAT00030'>[]
  NAT00030A: NatValues<'NAT00030A'>[]
}

/**
 * NAT00030A needs recognition, level and field of education. A program without all three is written
 * to NAT00030 (identifier, name, hours), which reads back as a VET program without classifications:
 * any classification it did have, and a false VET indicator, are reported as not written.
 */
export function programsToNat(context: ExportContext): ProgramLines {
  const lines: ProgramLines = { NAT00030: [], NAT00030A: [] }
  for (const [uid, program] of context.byUid.Program) {
    const code = (field: string, dataset: string, word: string | undefined) =>
      context.code('Program', uid, field, dataset, word)
    const recognition = code('programRecognition', 'program-recognition', program.programRecognition)
    const level = code('programLevelOfEducation', 'program-level-of-education', program.programLevelOfEducation)
    const common = {
      programIdentifier: program.programIdentifier,
      programName: program.programName,
      nominalHours: digits(program.nominalHours),
    }
    if (recognition !== undefined && level !== undefined && program.programFieldOfEducation !== undefined) {
      lines.NAT00030A.push(
        defined({
          ...common,
          programRecognitionIdentifier: recognition,
          programLevelOfEducationIdentifier: level,
          programFieldOfEducationIdentifier: program.programFieldOfEducation,
          anzscoIdentifier: program.occupationCode,
          vetFlag: yesNo(program.vocationalTrainingIndicator),
        }),
      )
      continue
    }
    reportUnwritten(context, uid, program)
    lines.NAT00030.push(defined(common))
  }
  return lines
}

function reportUnwritten(context: ExportContext, uid: string, program: ProgramRecord): void {
  const lost: { field: keyof ProgramRecord; value: string }[] = []
  for (const field of [
    'programRecognition',
    'programLevelOfEducation',
    'programFieldOfEducation',
    'occupationCode',
  ] as const) {
    const value = program[field]
    if (value !== undefined) lost.push({ field, value })
  }
  if (!program.vocationalTrainingIndicator) lost.push({ field: 'vocationalTrainingIndicator', value: 'false' })
  for (const { field, value } of lost) {
    context.problem(
      'Program',
      uid,
      field,
      'The program lacks a classification NAT00030A requires (recognition, level or field of education), so it is written to NAT00030, which has no field for this one',
      value,
    )
  }
}
