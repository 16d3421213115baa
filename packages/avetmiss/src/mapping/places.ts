// A place in the NAT files as a person or a program is told it: the file as found, its identifier,
// the line, and the field under both its camelCase name and its published label, with the one-line
// text (`NAT00120 line 17 field Activity start date`). The CLI prints these and the service answers
// them; both take them from here.
import { natFileIdOf } from '../file-names.ts'
import { NAT_LAYOUTS } from '../layouts/index.ts'
import type { NatProblem } from '../problems.ts'
import { formatNatLocation, locate, type NatLocation, type OriginIndex } from './origin.ts'

export interface NatPlace {
  /** The file's name as found. */
  file: string
  /** NAT00120 ...; absent for a file name the reader did not recognise. */
  fileId?: string
  /** 1-based; 0 for the file as a whole (missing, or in the set twice). */
  line: number
  /** The NAT field's name in camelCase, as this package names it. */
  field?: string
  /** Its published name (`Activity start date`). */
  fieldLabel?: string
  /** `NAT00120 line 17 field Activity start date`. */
  text: string
}

/** Where a reading or mapping problem is. */
export function natPlaceOfProblem(problem: NatProblem): NatPlace {
  // A missing file is reported under its identifier (NAT00010), which names a file too.
  const fileId = natFileIdOf(problem.file)
  const fields: readonly { name: string; label: string }[] = fileId ? NAT_LAYOUTS[fileId].fields : []
  const fieldLabel = fields.find((candidate) => candidate.name === problem.field)?.label
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

/** A located record or field as a place. */
export function natPlaceOf(location: NatLocation): NatPlace {
  return {
    file: location.file,
    fileId: location.fileId,
    line: location.line,
    ...(location.field ? { field: location.field } : {}),
    ...(location.label ? { fieldLabel: location.label } : {}),
    text: formatNatLocation(location),
  }
}

/**
 * The NAT places of a record's fields, one per distinct place, in the order of the paths (none given:
 * the record's own line); none for a record these files did not give (a held record a set rule named).
 */
export function natPlacesOf(
  origins: OriginIndex,
  resourceType: string,
  uid: string,
  paths: readonly string[],
): NatPlace[] {
  const places = new Map<string, NatPlace>()
  for (const path of paths.length > 0 ? paths : [undefined]) {
    const location = locate(origins, resourceType, uid, path)
    if (location) places.set(formatNatLocation(location), natPlaceOf(location))
  }
  return [...places.values()]
}
