// The eight reporting resources (Student ... SubjectEnrolment): their schemas, and upload, read, list
// and delete inside a transaction batch.
export { resourceRoutes } from './resources.routes.ts'
export { resourceDefinitions, type ResourceDefinition } from './resource.schemas.ts'
export { createRecordCheck, type RecordCheck, type RecordCheckOutcome } from './record-check.ts'
// Resource type names, segments, UID fields and references are the shared kernel's (src/domain/resource-types.ts).
export {
  Student,
  DeliveryLocation,
  Program,
  ProgramOffering,
  ProgramEnrolment,
  Subject,
  SubjectOffering,
  SubjectEnrolment,
} from './resource.schemas.ts'
export * as codeLists from './code-lists.ts'
