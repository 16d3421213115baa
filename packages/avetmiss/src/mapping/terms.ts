// The service speaks of records by UID and of fields by JSON path (`$.programUID b9d71a18-...`); a data
// officer knows them by the identifiers of the NAT files and the SMS (program BSB40120, client
// C000077777) and by the fields' published names. This turns the one into the other, for validation
// results and upload refusals about mapped records.
import { natRecordIdentity } from '../identity.ts'
import type { NatRecord } from '../records.ts'
import type { MappedRecord } from './mapped-record.ts'
import { locate, locateExact, type OriginIndex } from './origin.ts'

/** What a record is, by UID, in the file's identifiers. */
export type NatTerms = ReadonlyMap<string, string>

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const JSON_PATH = /\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+/g
/** An API field name or path as messages write it without `$.`: camelCase with a capital (`activityStartDate`). */
const FIELD_NAME = /\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(?:\[\d+\])?(?:\.[a-z][A-Za-z0-9]*(?:\[\d+\])?)*\b/g

function valuesOf(line: unknown): Record<string, string | undefined> {
  return ((line as Partial<NatRecord>).values ?? {}) as Record<string, string | undefined>
}

/** One record in the file's identifiers: `program BSB40120`, `client C0001 in program BSB40120`, ... */
export function identityOf(record: MappedRecord): string | undefined {
  const first = record.origin.lines[0]
  const values = valuesOf(first)
  const v = (field: string) => values[field]
  switch (record.resourceType) {
    case 'Student':
    case 'DeliveryLocation':
    case 'Program':
    case 'Subject':
      return first ? natRecordIdentity(first.fileId, values) : undefined
    case 'ProgramOffering':
      return `the offering of program ${v('programIdentifier')}`
    case 'SubjectOffering':
      return `the offering of subject ${v('subjectIdentifier')}${v('programIdentifier') ? ` in program ${v('programIdentifier')}` : ''} at location ${v('deliveryLocationIdentifier')}`
    case 'ProgramEnrolment':
      return `the enrolment of client ${v('clientIdentifier')} in program ${v('programIdentifier')}`
    case 'SubjectEnrolment': {
      const identity = natRecordIdentity('NAT00120', values)
      return identity ? `the activity of ${identity}` : undefined
    }
  }
}

/** The identities of mapped records, by UID (lower case). */
export function natTermsOf(records: Iterable<MappedRecord>): NatTerms {
  const terms = new Map<string, string>()
  for (const record of records) {
    const identity = identityOf(record)
    if (identity) terms.set(record.uid.toLowerCase(), identity)
  }
  return terms
}

/**
 * The text with every UID told as the record it names (`program BSB40120`; one these files did not give,
 * `a record not in these files`) and every JSON path of the record (`$.activityStartDate`) told as the
 * NAT field it came from (`Activity start date`), or as the API field's name without `$.`.
 */
export function inNatTerms(
  text: string,
  terms: NatTerms,
  origins?: OriginIndex,
  about?: { resourceType: string; uid: string },
): string {
  return text
    .replace(UUID, (uid) => terms.get(uid.toLowerCase()) ?? 'a record not in these files')
    .replace(JSON_PATH, (path) => {
      const located = origins && about ? locate(origins, about.resourceType, about.uid, path) : undefined
      return located?.label ?? path.replace(/^\$\.?/, '')
    })
    .replace(FIELD_NAME, (name) =>
      origins && about ? (locateExact(origins, about.resourceType, about.uid, name)?.label ?? name) : name,
    )
}

const USI_PATTERN = '^([2-9A-HJ-NP-Z]{10}|INTOFF)$'

/**
 * A structural check's message (`must match pattern "^...$"`, `must NOT have more than 100 characters`)
 * as plain words with the value: `Unique student identifier "3AW88YH9I5" is not a USI: 10 characters, ...`.
 */
export function plainFieldMessage(message: string, label: string, value: unknown): string {
  const shown = value === undefined ? '' : ` "${typeof value === 'string' ? value : JSON.stringify(value)}"`
  const pattern = /must match pattern "(.*)"/.exec(message)?.[1]
  if (pattern === USI_PATTERN)
    return `${label}${shown} is not a USI: a USI is 10 characters, the digits 2 to 9 and the capital letters other than I and O, or INTOFF`
  if (pattern !== undefined) return `${label}${shown} is not in the form the service takes (${pattern})`
  const longest = /must NOT have more than (\d+) characters/.exec(message)?.[1]
  if (longest !== undefined) return `${label}${shown} is longer than the ${longest} characters the service takes`
  const shortest = /must NOT have fewer than (\d+) characters/.exec(message)?.[1]
  if (shortest !== undefined) return `${label}${shown} is shorter than the ${shortest} characters the service takes`
  const format = /must match format "(.*)"/.exec(message)?.[1]
  if (format !== undefined) return `${label}${shown} is not a valid ${format}`
  return `${label}${shown}: ${message}`
}
