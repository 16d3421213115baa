// The one entry point of test support, for the service's tests and the client package's: a real
// service on its own database, HTTP calls, what an SMS does (report, assess, declare), fresh records,
// services in child processes, outages, and waiting on an outcome. (The fuzzer's request generator,
// openapi-arbitrary.ts, is imported by the one test that uses it: it loads fast-check.)
export {
  call,
  createTestDatabase,
  onPostgres,
  startTestService,
  tokenFor,
  type TestDatabase,
  type TestService,
} from './test-service.ts'
export { V1, Reporter, minimalUnitRecord, type Upload, type ValidationOutcome } from './reporting.ts'
export { PERIOD, Assessor, assessmentScopeOf, declarationBody, newClientOf, newRto, type Rto } from './assessing.ts'
export { allOf, segmentOf, uidOf, uploadsOf, voided, world, type World } from './world.ts'
export { EXAMPLE_DIR, MINIMAL_UNIT_RECORD, loadExample } from './examples.ts'
export { freePort, processAlive, startChildService, type ChildService } from './child-service.ts'
export { TcpProxy } from './tcp-proxy.ts'
export { ProbeRecord, registerProbeRoutes, storedProbeRecords, validRecord } from './probe-routes.ts'
export { pause, waitFor, type WaitOptions } from './wait.ts'
