// Whose files these are: NAT00010, NAT00020, NAT00120 and NAT00130 each carry the training
// organisation identifier on every line. A set whose identifier is not the RTO it is reported for is
// another RTO's files (or an SMS set up with the wrong code): imported, it would add that RTO's
// students and activity to this RTO's held data under new UIDs, doubling it. Importers refuse such a
// set before anything is uploaded (docs/decisions.md, "NAT imports year after year (issue 31)").
import type { NatRecord, NatRecordSet } from './records.ts'

/** The files whose lines carry the training organisation identifier. */
export const ORGANISATION_FILES = ['NAT00010', 'NAT00020', 'NAT00120', 'NAT00130'] as const
export type OrganisationFileId = (typeof ORGANISATION_FILES)[number]

/** A training organisation identifier, other than the RTO's, found in one file. */
export interface OtherOrganisation {
  fileId: OrganisationFileId
  /** The file's name as found in the folder or zip. */
  file: string
  /** The first line naming it. */
  line: number
  field: 'trainingOrganisationIdentifier'
  /** The identifier the lines give. */
  value: string
  /** How many lines of the file give it. */
  lines: number
}

/**
 * Every training organisation identifier other than `rtoCode` in the records read, per file and
 * identifier, at the first line giving it; none when the set is the RTO's.
 */
export function otherOrganisations(records: NatRecordSet, rtoCode: string): OtherOrganisation[] {
  const tally = new OrganisationTally()
  for (const fileId of ORGANISATION_FILES) for (const record of records[fileId]) tally.add(record)
  return tally.others(rtoCode)
}

/**
 * The training organisation identifiers of the records, counted as they are read (so that a reader
 * that does not keep the lines can still say whose they are): per file and identifier, the first
 * line giving it and how many do. Records of other files are not counted.
 */
export class OrganisationTally {
  readonly #byFile = new Map<string, Map<string, OtherOrganisation>>()

  add(record: NatRecord): void {
    if (!(ORGANISATION_FILES as readonly string[]).includes(record.fileId)) return
    const value = (record.values as { trainingOrganisationIdentifier?: string }).trainingOrganisationIdentifier
    if (value === undefined) return
    let byCode = this.#byFile.get(record.fileId)
    if (!byCode) {
      byCode = new Map()
      this.#byFile.set(record.fileId, byCode)
    }
    const seen = byCode.get(value)
    if (seen) seen.lines++
    else
      byCode.set(value, {
        fileId: record.fileId as OrganisationFileId,
        file: record.file,
        line: record.line,
        field: 'trainingOrganisationIdentifier',
        value,
        lines: 1,
      })
  }

  /** The identifiers other than `rtoCode`, in file order (ORGANISATION_FILES) and then as first found. */
  others(rtoCode: string): OtherOrganisation[] {
    return ORGANISATION_FILES.flatMap((fileId) =>
      [...(this.#byFile.get(fileId)?.values() ?? [])]
        .filter((other) => other.value !== rtoCode)
        .map((other) => ({ ...other })),
    )
  }
}

/**
 * One sentence for a refusal: the codes the files give, where, and the RTO's.
 * `NAT00010 line 1 gives training organisation identifier 90009 (also 4 lines of NAT00120), not 90001, ...`
 */
export function otherOrganisationMessage(found: readonly OtherOrganisation[], rtoCode: string): string {
  const codes = [...new Set(found.map((other) => other.value))]
  const where = found
    .map(
      (other) =>
        `${other.fileId} line ${other.line}${other.lines > 1 ? ` and ${other.lines - 1} more` : ''} (${other.value})`,
    )
    .join(', ')
  return `These NAT files are for training organisation ${codes.join(', ')}, not for RTO ${rtoCode}, which they are being imported for: training organisation identifier ${where}. Nothing was uploaded. Import them as the RTO they name, or correct the training organisation identifier in the student management system and write the files again.`
}
