// A NAT line's record named the way the files and the SMS name it: by client, subject, program and
// delivery location identifiers, never by a UID. Every finding says which record it is about this way.
import type { NatFileId } from './layouts/index.ts'

/** DD/MM/YYYY of a YYYY-MM-DD date (as the reader returns dates), or the text as it is. */
function shownDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  return match ? `${match[3]}/${match[2]}/${match[1]}` : value
}

/**
 * The record of a line in the file's identifiers, from the values the line gave (partial values of a
 * line that could not be read are fine): `client C0001`, `program BSB40120`, `client C0001, subject
 * BSBWHS411, program BSB40120, location CBD01, starting 02/02/2026`. Undefined when none is known.
 */
export function natRecordIdentity(
  fileId: NatFileId | string,
  values: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const parts: string[] = []
  const add = (word: string, field: string) => {
    const value = values[field]
    if (value !== undefined && value !== '') parts.push(`${word} ${value}`)
  }
  switch (fileId) {
    case 'NAT00010':
      add('training organisation', 'trainingOrganisationIdentifier')
      break
    case 'NAT00020':
      add('delivery location', 'deliveryLocationIdentifier')
      break
    case 'NAT00030':
    case 'NAT00030A':
      add('program', 'programIdentifier')
      break
    case 'NAT00060':
      add('subject', 'subjectIdentifier')
      break
    case 'NAT00080':
    case 'NAT00085':
    case 'NAT00090':
    case 'NAT00100':
      add('client', 'clientIdentifier')
      break
    case 'NAT00120': {
      add('client', 'clientIdentifier')
      add('subject', 'subjectIdentifier')
      add('program', 'programIdentifier')
      add('location', 'deliveryLocationIdentifier')
      const start = values.activityStartDate
      if (start) parts.push(`starting ${shownDate(start)}`)
      break
    }
    case 'NAT00130':
      add('client', 'clientIdentifier')
      add('program', 'programIdentifier')
      break
  }
  return parts.length > 0 ? parts.join(', ') : undefined
}
