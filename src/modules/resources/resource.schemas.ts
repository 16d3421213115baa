// The eight resources of a transaction batch (spec: Resources and their fields; Resource endpoints
// inside a batch): their schemas, the path segment and UID field of each, and which UID fields point
// at which other resource. Routes, storage and the orphan rules are driven from these tables.
import type { TSchema } from 'typebox'
import { Student } from './student.schema.ts'
import { DeliveryLocation } from './delivery-location.schema.ts'
import { Program, ProgramOffering } from './program.schemas.ts'
import { Subject, SubjectOffering } from './subject.schemas.ts'
import { ProgramEnrolment, SubjectEnrolment } from './enrolment.schemas.ts'

export {
  Student,
  DeliveryLocation,
  Program,
  ProgramOffering,
  Subject,
  SubjectOffering,
  ProgramEnrolment,
  SubjectEnrolment,
}
export { LifecycleState, ThirdPartyServiceProvider } from './enrolment.schemas.ts'

export const resourceTypes = [
  'Student',
  'DeliveryLocation',
  'Program',
  'ProgramOffering',
  'ProgramEnrolment',
  'Subject',
  'SubjectOffering',
  'SubjectEnrolment',
] as const
export type ResourceType = (typeof resourceTypes)[number]
/** Path segment of a resource: its type in lower case (`deliverylocation`). */
export type ResourceSegment = Lowercase<ResourceType>
/** UID field of a resource, also the name of its path parameter (`deliveryLocationUID`). */
export type UidField = `${Uncapitalize<ResourceType>}UID`

export interface ResourceDefinition<Schema extends TSchema = TSchema> {
  readonly segment: ResourceSegment
  readonly resourceType: ResourceType
  readonly uidField: UidField
  readonly schema: Schema
}

/** In the spec's segment order. The spec does not name the subject enrolment's path parameter; it follows the pattern. */
export const resourceDefinitions = [
  { segment: 'student', resourceType: 'Student', uidField: 'studentUID', schema: Student },
  {
    segment: 'deliverylocation',
    resourceType: 'DeliveryLocation',
    uidField: 'deliveryLocationUID',
    schema: DeliveryLocation,
  },
  { segment: 'program', resourceType: 'Program', uidField: 'programUID', schema: Program },
  {
    segment: 'programoffering',
    resourceType: 'ProgramOffering',
    uidField: 'programOfferingUID',
    schema: ProgramOffering,
  },
  {
    segment: 'programenrolment',
    resourceType: 'ProgramEnrolment',
    uidField: 'programEnrolmentUID',
    schema: ProgramEnrolment,
  },
  { segment: 'subject', resourceType: 'Subject', uidField: 'subjectUID', schema: Subject },
  {
    segment: 'subjectoffering',
    resourceType: 'SubjectOffering',
    uidField: 'subjectOfferingUID',
    schema: SubjectOffering,
  },
  {
    segment: 'subjectenrolment',
    resourceType: 'SubjectEnrolment',
    uidField: 'subjectEnrolmentUID',
    schema: SubjectEnrolment,
  },
] as const satisfies readonly ResourceDefinition[]

/**
 * A field of one resource that holds the UID of another. `locations[].deliveryLocationUID` means the
 * field in every item of the locations array. Optional references are checked only when present.
 */
export interface ReferenceField {
  readonly field: string
  readonly references: ResourceType
}

export const referenceFields: Record<ResourceType, readonly ReferenceField[]> = {
  Student: [],
  DeliveryLocation: [],
  Program: [],
  Subject: [],
  ProgramOffering: [
    { field: 'programUID', references: 'Program' },
    { field: 'deliveryLocationUID', references: 'DeliveryLocation' },
  ],
  SubjectOffering: [
    { field: 'subjectUID', references: 'Subject' },
    { field: 'programOfferingUID', references: 'ProgramOffering' },
    { field: 'deliveryLocationUID', references: 'DeliveryLocation' },
  ],
  ProgramEnrolment: [
    { field: 'studentUID', references: 'Student' },
    { field: 'programOfferingUID', references: 'ProgramOffering' },
  ],
  SubjectEnrolment: [
    { field: 'studentUID', references: 'Student' },
    { field: 'subjectOfferingUID', references: 'SubjectOffering' },
    { field: 'programEnrolmentUID', references: 'ProgramEnrolment' },
    { field: 'locations[].deliveryLocationUID', references: 'DeliveryLocation' },
  ],
}
