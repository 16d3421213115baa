// The schemas of the eight resources of a transaction batch (spec: Resources and their fields), with
// the path segment and UID field of each (src/domain/resource-types.ts). Routes are driven from them.
import type { TSchema } from 'typebox'
import {
  resourceTypes,
  segmentOf,
  uidFieldOf,
  type ResourceSegment,
  type ResourceType,
  type UidField,
} from '../../domain/resource-types.ts'
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

export interface ResourceDefinition<Schema extends TSchema = TSchema> {
  readonly segment: ResourceSegment
  readonly resourceType: ResourceType
  readonly uidField: UidField
  readonly schema: Schema
}

const schemaOf: Record<ResourceType, TSchema> = {
  Student,
  DeliveryLocation,
  Program,
  ProgramOffering,
  ProgramEnrolment,
  Subject,
  SubjectOffering,
  SubjectEnrolment,
}

/** In the spec's segment order (src/domain/resource-types.ts). */
export const resourceDefinitions: readonly ResourceDefinition[] = resourceTypes.map((resourceType) => ({
  segment: segmentOf(resourceType),
  resourceType,
  uidField: uidFieldOf(resourceType),
  schema: schemaOf[resourceType],
}))
