// The service's resources back to a NAT file set that formatNat*/writeNat* can write: reading that
// set and mapping it again gives the same records, field for field, for every field the mapping
// carries (docs/decisions.md, "NAT bridge: mapping", lists what it does not).
import type { NatValues } from '../layouts/index.ts'
import type { NatFileSet } from '../records.ts'
import type { CodeTranslator } from './code-translator.ts'
import type { ResourceEntry } from './resource-records.ts'
import { activityToNat } from './to-nat/activity.ts'
import { ExportContext, type ResourceProblem, sortedBy } from './to-nat/context.ts'
import { deliveryLocationsToNat } from './to-nat/delivery-locations.ts'
import { programsToNat } from './to-nat/programs.ts'
import { studentsToNat } from './to-nat/students.ts'
import { subjectsToNat } from './to-nat/subjects.ts'

export interface ResourcesToNatOptions {
  /** The RTO's national code, written as every line's training organisation identifier. */
  rtoCode: string
  /** Translates the API's words to AVETMISS codes (codeTranslatorFrom the reference data). */
  codes: CodeTranslator
  /**
   * NAT00010, the organisation itself, which no resource holds: written when given (its identifier
   * defaults to `rtoCode`), left out of the set otherwise.
   */
  trainingOrganisation?: NatValues<'NAT00010'>
}

export interface ResourcesToNatResult {
  fileSet: NatFileSet
  /** What could not be written as it is, by resource and field. */
  problems: ResourceProblem[]
}

/**
 * Writes resources (the held dataset, or what natToResources made) as NAT lines, each file in the
 * order of its natural key so that the same records always give the same files. Voided records are
 * left out. Every file of the set is given, empty when it has no line, except NAT00030 (only when a
 * program needs it) and NAT00010 (only when `trainingOrganisation` is given).
 */
export function resourcesToNat(
  records: readonly ResourceEntry[],
  options: ResourcesToNatOptions,
): ResourcesToNatResult {
  const context = new ExportContext(options.rtoCode, options.codes, records)
  const students = studentsToNat(context)
  const programs = programsToNat(context)
  const activity = activityToNat(context)
  const fileSet: NatFileSet = {
    NAT00020: sortedBy(deliveryLocationsToNat(context), (line) => [line.deliveryLocationIdentifier]),
    NAT00030A: sortedBy(programs.NAT00030A, (line) => [line.programIdentifier]),
    NAT00060: sortedBy(subjectsToNat(context), (line) => [line.subjectIdentifier]),
    NAT00080: sortedBy(students.NAT00080, (line) => [line.clientIdentifier]),
    NAT00085: sortedBy(students.NAT00085, (line) => [line.clientIdentifier]),
    // By client only: the sort is stable, so a student's disabilities and achievements keep the order of
    // their lists, which the import gives back in line order (sorting by code reordered them).
    NAT00090: sortedBy(students.NAT00090, (line) => [line.clientIdentifier]),
    NAT00100: sortedBy(students.NAT00100, (line) => [line.clientIdentifier]),
    NAT00120: sortedBy(activity.NAT00120, (line) => [
      line.clientIdentifier,
      line.programIdentifier,
      line.subjectIdentifier,
      line.activityStartDate,
      line.deliveryLocationIdentifier,
    ]),
    NAT00130: sortedBy(activity.NAT00130, (line) => [line.clientIdentifier, line.programIdentifier]),
  }
  if (programs.NAT00030.length > 0) fileSet.NAT00030 = sortedBy(programs.NAT00030, (line) => [line.programIdentifier])
  if (options.trainingOrganisation) {
    fileSet.NAT00010 = [{ trainingOrganisationIdentifier: options.rtoCode, ...options.trainingOrganisation }]
  }
  return { fileSet, problems: context.problems }
}
