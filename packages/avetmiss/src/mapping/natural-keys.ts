// The natural key of each resource type in NAT terms, and the UID natUid derives from it. Every UID
// the mapping writes, a record's own and every reference to another, comes from here, so that
// importing the same NAT data again, from any machine, replaces the same records.
// docs/decisions.md, "NAT bridge: mapping (issue 19)", says why each key is what it is.
import { natUid } from '../nat-uid.ts'

/** The parts of an AVETMISS activity (NAT00120) key. */
export interface ActivityKey {
  deliveryLocationIdentifier: string
  clientIdentifier: string
  subjectIdentifier: string
  /** Blank ('') for a subject studied outside a program. */
  programIdentifier: string
  activityStartDate: string
}

/** The UIDs of one RTO's records, by their natural keys. */
export interface NaturalKeys {
  student(clientIdentifier: string): string
  deliveryLocation(deliveryLocationIdentifier: string): string
  program(programIdentifier: string): string
  subject(subjectIdentifier: string): string
  /** One offering per program: NAT has no runs of a program. */
  programOffering(programIdentifier: string): string
  /** One offering per subject, program (or none) and delivery location. */
  subjectOffering(subjectIdentifier: string, programIdentifier: string, deliveryLocationIdentifier: string): string
  /** One program enrolment per client and program. */
  programEnrolment(clientIdentifier: string, programIdentifier: string): string
  /** The AVETMISS activity key: RTO, location, client, subject, program and start date. */
  subjectEnrolment(key: ActivityKey): string
}

export function naturalKeysOf(rtoCode: string): NaturalKeys {
  return {
    student: (client) => natUid(rtoCode, 'Student', [client]),
    deliveryLocation: (location) => natUid(rtoCode, 'DeliveryLocation', [location]),
    program: (program) => natUid(rtoCode, 'Program', [program]),
    subject: (subject) => natUid(rtoCode, 'Subject', [subject]),
    programOffering: (program) => natUid(rtoCode, 'ProgramOffering', [program]),
    subjectOffering: (subject, program, location) => natUid(rtoCode, 'SubjectOffering', [subject, program, location]),
    programEnrolment: (client, program) => natUid(rtoCode, 'ProgramEnrolment', [client, program]),
    subjectEnrolment: (key) =>
      natUid(rtoCode, 'SubjectEnrolment', [
        key.deliveryLocationIdentifier,
        key.clientIdentifier,
        key.subjectIdentifier,
        key.programIdentifier,
        key.activityStartDate,
      ]),
  }
}
