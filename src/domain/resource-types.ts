// The eight reporting resources (spec: Resources and their fields; Resource endpoints inside a batch):
// the one list of their type names, and what follows from a name by the spec's pattern, the lower-case
// path segment (`deliverylocation`) and the UID field that is also the path parameter
// (`deliveryLocationUID`), and which UID fields point at which other resource. Everything else that
// lists resource types (schemas, routes, record counts, rules, reconciliation) is derived from here.

/** In the spec's segment order, the order routes, record counts and lists follow. */
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
/**
 * UID field of a resource, also the name of its path parameter (`deliveryLocationUID`). The spec does
 * not name the subject enrolment's path parameter; it follows the pattern.
 */
export type UidField = `${Uncapitalize<ResourceType>}UID`

export const segmentOf = <Type extends ResourceType>(type: Type): Lowercase<Type> =>
  type.toLowerCase() as Lowercase<Type>

export const uidFieldOf = <Type extends ResourceType>(type: Type): `${Uncapitalize<Type>}UID` =>
  `${type.charAt(0).toLowerCase()}${type.slice(1)}UID` as `${Uncapitalize<Type>}UID`

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
