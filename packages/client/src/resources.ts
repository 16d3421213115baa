// The eight resources: their path segments, their own UID fields, and how a record's kind is told
// from its fields, so an SMS can hand over plain records without labelling each one.
import type { components } from './generated/openapi.ts'
import { UsageError } from './errors.ts'

type Schemas = components['schemas']
export type Student = Schemas['Student']
export type DeliveryLocation = Schemas['DeliveryLocation']
export type Program = Schemas['Program']
export type ProgramOffering = Schemas['ProgramOffering']
export type ProgramEnrolment = Schemas['ProgramEnrolment']
export type Subject = Schemas['Subject']
export type SubjectOffering = Schemas['SubjectOffering']
export type SubjectEnrolment = Schemas['SubjectEnrolment']
export type ResourceRecord =
  | Student
  | DeliveryLocation
  | Program
  | ProgramOffering
  | ProgramEnrolment
  | Subject
  | SubjectOffering
  | SubjectEnrolment
export type Problem = Schemas['Problem']

export type Segment =
  | 'student'
  | 'deliverylocation'
  | 'program'
  | 'programoffering'
  | 'programenrolment'
  | 'subject'
  | 'subjectoffering'
  | 'subjectenrolment'
export type ResourceType =
  | 'Student'
  | 'DeliveryLocation'
  | 'Program'
  | 'ProgramOffering'
  | 'ProgramEnrolment'
  | 'Subject'
  | 'SubjectOffering'
  | 'SubjectEnrolment'

interface Kind {
  segment: Segment
  resourceType: ResourceType
  uidField: string
}

// Most specific first: an enrolment also carries its student's and offering's UIDs, an offering its
// subject's or program's, so the first own-UID field found names the record's kind.
const KINDS: Kind[] = [
  { segment: 'subjectenrolment', resourceType: 'SubjectEnrolment', uidField: 'subjectEnrolmentUID' },
  { segment: 'programenrolment', resourceType: 'ProgramEnrolment', uidField: 'programEnrolmentUID' },
  { segment: 'subjectoffering', resourceType: 'SubjectOffering', uidField: 'subjectOfferingUID' },
  { segment: 'programoffering', resourceType: 'ProgramOffering', uidField: 'programOfferingUID' },
  { segment: 'student', resourceType: 'Student', uidField: 'studentUID' },
  { segment: 'deliverylocation', resourceType: 'DeliveryLocation', uidField: 'deliveryLocationUID' },
  { segment: 'subject', resourceType: 'Subject', uidField: 'subjectUID' },
  { segment: 'program', resourceType: 'Program', uidField: 'programUID' },
]

export const SEGMENTS: Segment[] = KINDS.map((kind) => kind.segment)

/** The kind of a record, told from its own UID field. */
export function kindOf(record: object): Kind & { uid: string } {
  const fields = record as Record<string, unknown>
  for (const kind of KINDS) {
    const uid = fields[kind.uidField]
    if (typeof uid === 'string') return { ...kind, uid }
  }
  throw new UsageError(`not a recognised record: it has none of ${KINDS.map((k) => k.uidField).join(', ')}`)
}

export function kindOfType(resourceType: string): Kind {
  const kind = KINDS.find((k) => k.resourceType === resourceType || k.segment === resourceType.toLowerCase())
  if (!kind) throw new UsageError(`unknown resource type ${resourceType}`)
  return kind
}
