// Everything an import found, as one kind of row a person or a script reads: a line the reader could
// not read, a value the mapping could not carry, a record the upload refused, a failed validation
// result. Each says where it is in the NAT files (file, line, field), which is what the user corrects:
// the records the service saw are derived from those lines.
import {
  type NatPlace,
  type NatProblem,
  natPlaceOfProblem,
  natPlacesOf,
  type OriginIndex,
  type OtherOrganisation,
} from '@vetrs/avetmiss'
import type { RefusedRecord, ValidationResult } from '@vetrs/client'

export type { NatPlace }

export type FindingStage = 'organisation' | 'read' | 'map' | 'upload' | 'validation'

export interface Finding {
  stage: FindingStage
  /** Error blocks submission; Warning does not. Every read, mapping and upload problem is an Error. */
  level: 'Error' | 'Warning'
  /** The validation rule (errorNumber), for validation results. */
  rule?: string
  /** Where in the NAT files; empty when the record is not from these files (held data it refers to). */
  nat: NatPlace[]
  /** The offending text, where the reader or the mapping had one. */
  value?: string
  message: string
  correctiveAction?: string
  resourceType?: string
  resourceUID?: string
  accessPath?: string[]
}

/** A reader or mapping problem: it already has its file, line and field. */
export function problemFinding(stage: 'read' | 'map', problem: NatProblem): Finding {
  return {
    stage,
    level: 'Error',
    nat: [natPlaceOfProblem(problem)],
    ...(problem.value === undefined ? {} : { value: problem.value }),
    message: problem.message,
  }
}

/** A training organisation identifier that is not the caller's RTO: the set is refused before anything is uploaded. */
export function organisationFinding(other: OtherOrganisation, rtoCode: string): Finding {
  const more =
    other.lines > 1 ? ` (and ${other.lines - 1} more ${other.lines === 2 ? 'line' : 'lines'} of ${other.fileId})` : ''
  return {
    stage: 'organisation',
    level: 'Error',
    nat: [natPlaceOfProblem({ file: other.file, line: other.line, field: other.field, message: '' })],
    value: other.value,
    message: `Training organisation identifier ${other.value} is not ${rtoCode}, the RTO you are logged in as${more}`,
    correctiveAction: `Import these files logged in as RTO ${other.value}, or correct the training organisation identifier in the student management system to ${rtoCode} and write the files again.`,
  }
}

/** A failed validation result, told as the NAT file, line and field of each attribute it names. */
export function validationFinding(origins: OriginIndex, result: ValidationResult): Finding {
  return {
    stage: 'validation',
    level: result.validationMessageLevel,
    rule: result.errorNumber,
    nat: natPlacesOf(origins, result.resourceType, result.resourceUID, result.accessPath),
    message: result.message,
    correctiveAction: result.correctiveAction,
    resourceType: result.resourceType,
    resourceUID: result.resourceUID,
    accessPath: result.accessPath,
  }
}

/**
 * A record the bulk upload refused (a structural failure: the mapping makes records the upload takes,
 * so this means the files hold a value the API's schema does not). Its access paths are into the
 * NDJSON line (`$.record.familyName`), so `$.record` is taken off to find the field.
 */
export function refusalFindings(
  origins: OriginIndex,
  refused: RefusedRecord,
  record: { resourceType: string; uid: string },
): Finding[] {
  return refused.errors.map((error) => {
    const path = error.accessPath.replace(/^\$\.record\b/, '$')
    return {
      stage: 'upload',
      level: 'Error',
      nat: natPlacesOf(origins, record.resourceType, record.uid, [path]),
      message: error.message,
      resourceType: record.resourceType,
      resourceUID: record.uid,
      accessPath: [path],
    }
  })
}

/** Where a finding is, in one line: its NAT places, or the record when it is not from these files. */
export function whereOf(finding: Finding): string {
  if (finding.nat.length > 0) return finding.nat.map((place) => place.text).join('; ')
  if (finding.resourceType) return `${finding.resourceType} ${finding.resourceUID} (held, not in these files)`
  return '-'
}
