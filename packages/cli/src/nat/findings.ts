// Everything an import found, as one kind of row a person or a script reads: a line the reader could
// not read, a value the mapping could not carry, a record the upload refused, a failed validation
// result. Each says where it is in the NAT files (file, line, field), which is what the user corrects:
// the records the service saw are derived from those lines.
import {
  formatNatLocation,
  locate,
  NAT_LAYOUTS,
  natFileIdOf,
  type NatLocation,
  type NatProblem,
  type OriginIndex,
} from '@vetrs/avetmiss'
import type { RefusedRecord, ValidationResult } from '@vetrs/client'

export type FindingStage = 'read' | 'map' | 'upload' | 'validation'

/** A NAT location a script can use: the file as found, its identifier, line, and field with its published name. */
export interface NatPlace {
  file: string
  fileId?: string
  /** 1-based; 0 for the file as a whole (missing, given twice). */
  line: number
  field?: string
  fieldLabel?: string
  /** `NAT00120 line 17 field Activity start date`. */
  text: string
}

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
    nat: [placeOfProblem(problem)],
    ...(problem.value === undefined ? {} : { value: problem.value }),
    message: problem.message,
  }
}

function placeOfProblem(problem: NatProblem): NatPlace {
  // A missing file is reported under its identifier (NAT00010), which names a file too.
  const fileId = natFileIdOf(problem.file)
  const fields: readonly { name: string; label: string }[] = fileId ? NAT_LAYOUTS[fileId].fields : []
  const fieldLabel = fields.find((f) => f.name === problem.field)?.label
  const id = fileId ?? problem.file
  const text =
    problem.line === 0
      ? `${id} (the whole file)`
      : `${id} line ${problem.line}${problem.field ? ` field ${fieldLabel ?? problem.field}` : ''}`
  return {
    file: problem.file,
    ...(fileId ? { fileId } : {}),
    line: problem.line,
    ...(problem.field ? { field: problem.field } : {}),
    ...(fieldLabel ? { fieldLabel } : {}),
    text,
  }
}

function placeOf(location: NatLocation): NatPlace {
  return {
    file: location.file,
    fileId: location.fileId,
    line: location.line,
    ...(location.field ? { field: location.field } : {}),
    ...(location.label ? { fieldLabel: location.label } : {}),
    text: formatNatLocation(location),
  }
}

/** The NAT places of a record's fields, one per distinct place, in the order of the paths. */
function placesOf(origins: OriginIndex, resourceType: string, uid: string, paths: readonly string[]): NatPlace[] {
  const places = new Map<string, NatPlace>()
  for (const path of paths.length > 0 ? paths : [undefined]) {
    const location = locate(origins, resourceType, uid, path)
    if (location) places.set(formatNatLocation(location), placeOf(location))
  }
  return [...places.values()]
}

/** A failed validation result, told as the NAT file, line and field of each attribute it names. */
export function validationFinding(origins: OriginIndex, result: ValidationResult): Finding {
  return {
    stage: 'validation',
    level: result.validationMessageLevel,
    rule: result.errorNumber,
    nat: placesOf(origins, result.resourceType, result.resourceUID, result.accessPath),
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
      nat: placesOf(origins, record.resourceType, record.uid, [path]),
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
