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

/**
 * The UIDs of one RTO's records. Each referenced record's UID is asked for once per reference (a
 * student's by each of its enrolments), so the UIDs of the referenced types are remembered: one hash
 * and one string per record. Subject enrolments are referenced by nothing and are not remembered.
 */
export function naturalKeysOf(rtoCode: string): NaturalKeys {
  const remembered = (resourceType: string) => {
    const uids = new Map<string, string>()
    return (...key: string[]) => {
      const joined = key.join('\u0000')
      let uid = uids.get(joined)
      if (uid === undefined) {
        uid = natUid(rtoCode, resourceType, key)
        uids.set(joined, uid)
      }
      return uid
    }
  }
  const student = remembered('Student')
  const deliveryLocation = remembered('DeliveryLocation')
  const program = remembered('Program')
  const subject = remembered('Subject')
  const programOffering = remembered('ProgramOffering')
  const subjectOffering = remembered('SubjectOffering')
  const programEnrolment = remembered('ProgramEnrolment')
  return {
    student: (client) => student(client),
    deliveryLocation: (location) => deliveryLocation(location),
    program: (identifier) => program(identifier),
    subject: (identifier) => subject(identifier),
    programOffering: (identifier) => programOffering(identifier),
    subjectOffering: (identifier, inProgram, location) => subjectOffering(identifier, inProgram, location),
    programEnrolment: (client, inProgram) => programEnrolment(client, inProgram),
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
