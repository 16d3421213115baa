// Everything an import found, as one kind of row a person or a script reads: a line the reader could
// not read, a value the mapping could not carry, a record the upload refused, a failed validation
// result. Each says where it is in the NAT files (file, line, field), which is what the user corrects:
// the records the service saw are derived from those lines.
import {
  inNatTerms,
  locate,
  type NatCheckFinding,
  type NatPlace,
  type NatProblem,
  type NatTerms,
  natPlaceOfProblem,
  natPlacesOf,
  type OriginIndex,
  type OtherOrganisation,
  plainFieldMessage,
} from '@vetrs/avetmiss'
import type { RefusedRecord, ValidationResult } from '@vetrs/client'

export type { NatPlace }

export type FindingStage = 'organisation' | 'read' | 'map' | 'check' | 'upload' | 'validation'

export interface Finding {
  stage: FindingStage
  /** Error blocks submission; Warning does not. Every read, mapping and upload problem is an Error. */
  level: 'Error' | 'Warning'
  /** The validation rule (errorNumber), for validation results; the NAT check's name, for NAT checks. */
  rule?: string
  /** Where in the NAT files; empty when the record is not from these files (held data it refers to). */
  nat: NatPlace[]
  /** The offending text, where the reader or the mapping had one. */
  value?: string
  /** The record in the files' identifiers (`client C0001, subject BSBWHS411, ...`), where known. */
  record?: string
  /** In the files' terms: identifiers and published field names, never a UID or a JSON path. */
  message: string
  /** What to change in the SMS (read and mapping problems), or the rule's corrective action in the files' terms. */
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
    ...(problem.record === undefined ? {} : { record: problem.record }),
    message: problem.message,
    ...(problem.correctiveAction === undefined ? {} : { correctiveAction: problem.correctiveAction }),
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

/** A NAT check's finding: its check's name as the rule, its level, and what to change in the SMS. */
export function checkFinding(finding: NatCheckFinding): Finding {
  return { ...problemFinding('map', finding), stage: 'check', level: finding.level, rule: finding.check }
}

/**
 * A failed validation result, told as the NAT file, line and field of each attribute it names, with its
 * UIDs and JSON paths told in the files' identifiers and field names (`terms`).
 */
export function validationFinding(
  origins: OriginIndex,
  result: ValidationResult,
  terms: NatTerms,
  bodies?: ReadonlyMap<string, unknown>,
): Finding {
  const about = { resourceType: result.resourceType, uid: result.resourceUID }
  const record = terms.get(result.resourceUID.toLowerCase())
  const path = result.accessPath[0]
  const found = path === undefined ? undefined : valueAt(bodies?.get(result.resourceUID.toLowerCase()), path)
  const value =
    typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean' ? String(found) : undefined
  return {
    stage: 'validation',
    level: result.validationMessageLevel,
    rule: result.errorNumber,
    nat: natPlacesOf(origins, result.resourceType, result.resourceUID, result.accessPath),
    ...(value === undefined ? {} : { value }),
    ...(record === undefined ? {} : { record }),
    message: inNatTerms(result.message, terms, origins, about),
    correctiveAction: inNatTerms(result.correctiveAction, terms, origins, about),
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
  record: { resourceType: string; uid: string; record: unknown },
  terms: NatTerms,
): Finding[] {
  return refused.errors.map((error) => {
    const path = error.accessPath.replace(/^\$\.record\b/, '$')
    const place = locate(origins, record.resourceType, record.uid, path)
    const value = valueAt(record.record, path)
    const identity = terms.get(record.uid.toLowerCase())
    return {
      stage: 'upload',
      level: 'Error',
      nat: natPlacesOf(origins, record.resourceType, record.uid, [path]),
      ...(value === undefined ? {} : { value: typeof value === 'string' ? value : JSON.stringify(value) }),
      ...(identity === undefined ? {} : { record: identity }),
      message: plainFieldMessage(error.message, place?.label ?? path.replace(/^\$\.?/, ''), value),
      correctiveAction: `In the SMS, correct ${place?.label ?? 'this value'}${identity ? ` of ${identity}` : ''}, and export the NAT files again.`,
      resourceType: record.resourceType,
      resourceUID: record.uid,
      accessPath: [path],
    }
  })
}

/** The value at a JSON path of a record (`$.locations[0].deliveryLocationUID`), or undefined. */
export function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body
  for (const part of path
    .replace(/^\$\.?/, '')
    .split(/\.|\[(\d+)\]/)
    .filter((piece) => piece)) {
    if (at === null || typeof at !== 'object') return undefined
    at = (at as Record<string, unknown>)[part]
  }
  return at
}

/** Where a finding is, in one line: its NAT places, or the record when it is not from these files. */
export function whereOf(finding: Finding): string {
  if (finding.nat.length > 0) return finding.nat.map((place) => place.text).join('; ')
  if (finding.resourceType) return `${finding.resourceType} ${finding.resourceUID} (held, not in these files)`
  return '-'
}
