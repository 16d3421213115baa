// A NAT file set, as read, to the records the service's upload takes for its eight resource types,
// each with where it came from, and every problem of the mapping at its NAT file, line and field.
import type { NatProblem } from '../problems.ts'
import type { NatUnreadable } from '../read-file-set.ts'
import type { NatRecordSet } from '../records.ts'
import type { CodeTranslator } from './code-translator.ts'
import { activityFromNat } from './from-nat/activity.ts'
import { checkOrganisation, type ImportContext } from './from-nat/context.ts'
import { deliveryLocationsFromNat } from './from-nat/delivery-locations.ts'
import { programsFromNat } from './from-nat/programs.ts'
import { studentsFromNat } from './from-nat/students.ts'
import { subjectsFromNat } from './from-nat/subjects.ts'
import type { MappedRecord } from './mapped-record.ts'
import { naturalKeysOf } from './natural-keys.ts'

export interface NatToResourcesOptions {
  /** The RTO's national code: part of every UID, and what the files' training organisation identifier should say. */
  rtoCode: string
  /** Translates AVETMISS codes to the API's words (codeTranslatorFrom the reference data). */
  codes: CodeTranslator
  /**
   * The studentStatusReason of the Cancelled state derived from outcome 40 (withdrawn/discontinued),
   * which does not say whether the withdrawal was formal. Default `Formal_withdrawal`.
   */
  withdrawalReason?: string
}

export interface NatToResourcesResult {
  /** What refers to another record comes after it: locations, programs, subjects, students, offerings, enrolments. */
  records: MappedRecord[]
  /** What could not be carried, in file and line order. A record with a problem may still be in `records`. */
  problems: NatProblem[]
}

/**
 * Maps the records of a NAT file set (`readNatFolder`, `readNatZip`, ...) to the service's
 * resources. The same set gives the same records with the same UIDs on every run. Pure: it reads
 * nothing and writes nothing.
 */
export function natToResources(
  set: { records: NatRecordSet; unreadable?: NatUnreadable },
  options: NatToResourcesOptions,
): NatToResourcesResult {
  const context: ImportContext = {
    rtoCode: options.rtoCode,
    codes: options.codes,
    keys: naturalKeysOf(options.rtoCode),
    withdrawalReason: options.withdrawalReason ?? 'Formal_withdrawal',
    problems: [],
    ...(set.unreadable ? { unreadable: set.unreadable } : {}),
  }
  const { records } = set
  for (const row of records.NAT00010) checkOrganisation(context, row)
  const locations = deliveryLocationsFromNat(context, records)
  const programs = programsFromNat(context, records)
  const subjects = subjectsFromNat(context, records)
  const students = studentsFromNat(context, records)
  const activity = activityFromNat(context, records)
  return {
    records: [
      ...locations,
      ...programs,
      ...subjects,
      ...students,
      ...activity.programOfferings,
      ...activity.subjectOfferings,
      ...activity.programEnrolments,
      ...activity.subjectEnrolments,
    ],
    problems: inFileOrder(context.problems),
  }
}

/** By file name, then line; the order found among problems of one line. */
export function inFileOrder(problems: NatProblem[]): NatProblem[] {
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) =>
      a.problem.file !== b.problem.file
        ? a.problem.file < b.problem.file
          ? -1
          : 1
        : a.problem.line - b.problem.line || a.index - b.index,
    )
    .map(({ problem }) => problem)
}
