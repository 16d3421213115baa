// The eight reporting resources (Student ... SubjectEnrolment): their schemas, and upload, read, list
// and delete inside a transaction batch.
export { registerResourceRoutes } from './resources.routes.ts'
export { resourceDefinitions, type ResourceDefinition } from './resource.schemas.ts'
