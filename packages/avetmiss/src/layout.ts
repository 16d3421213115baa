// The shape of a NAT file layout: each field at its published position, with the type that decides
// how it is read (strictness) and written (padding). The layouts themselves are in ./layouts/.

/**
 * The three field types of the AVETMISS file specifications:
 * - `alphanumeric` (A): any printable character, left-aligned and filled with spaces;
 * - `numeric` (N): digits only, right-aligned and filled with zeros;
 * - `date` (D): DDMMYYYY.
 */
export type FieldType = 'alphanumeric' | 'numeric' | 'date'

export interface FieldLayout<Name extends string = string> {
  /** The key of the field in a record's `values` (camelCase of the published name). */
  readonly name: Name
  /** The field's name as the specification publishes it. */
  readonly label: string
  /** 1-based column of the field's first character, as published. */
  readonly start: number
  readonly length: number
  readonly type: FieldType
  /** False where the specification requires a value: a blank field is then a problem. */
  readonly blankAllowed: boolean
}

export interface FileLayout<FileId extends string = string, Name extends string = string> {
  readonly fileId: FileId
  readonly title: string
  /** The published record length: the sum of the field lengths, end of line not counted. */
  readonly recordLength: number
  readonly fields: readonly FieldLayout<Name>[]
}

type Presence = 'required' | 'blank allowed'

function field<Name extends string>(
  type: FieldType,
  name: Name,
  label: string,
  start: number,
  length: number,
  presence: Presence,
): FieldLayout<Name> {
  return { name, label, start, length, type, blankAllowed: presence === 'blank allowed' }
}

/** An alphanumeric (A) field. */
export const alphanumeric = <Name extends string>(
  name: Name,
  label: string,
  start: number,
  length: number,
  presence: Presence,
) => field('alphanumeric', name, label, start, length, presence)

/** A numeric (N) field. */
export const numeric = <Name extends string>(
  name: Name,
  label: string,
  start: number,
  length: number,
  presence: Presence,
) => field('numeric', name, label, start, length, presence)

/** A date (D) field, DDMMYYYY: always 8 long. */
export const date = <Name extends string>(name: Name, label: string, start: number, presence: Presence) =>
  field('date', name, label, start, 8, presence)
