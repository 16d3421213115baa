// The service under test for the client's tests: a real instance (test/support, the one entry point) on
// the run's database, a fresh RTO with a client holding every scope, and an SDK client for it.
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { addClient } from '../../../../src/platform/auth/clients.service.ts'
import { ALL_SCOPES } from '../../../../src/platform/auth/scopes.ts'
import {
  Vetrs,
  type ClientOptions,
  type DeliveryLocation,
  type Program,
  type ProgramEnrolment,
  type ProgramOffering,
  type ResourceRecord,
  type Student,
  type Subject,
  type SubjectEnrolment,
  type SubjectOffering,
} from '../../src/index.ts'
import { EXAMPLE_DIR, world, type TestService } from '../../../../test/support/index.ts'

export { startTestService, type TestService } from '../../../../test/support/index.ts'

export interface TestRto {
  rto: string
  clientId: string
  clientSecret: string
}

export async function newRto(t: TestService, rto = `C${randomBytes(4).toString('hex')}`): Promise<TestRto> {
  const clientId = `sdk-${randomBytes(5).toString('hex')}`
  const { secret } = await addClient(t.service.database.db, { clientId, rto, scopes: [...ALL_SCOPES] })
  return { rto, clientId, clientSecret: secret }
}

/** An SDK client for the RTO, against baseUrl (the service, or a proxy in front of it). Fast polling and back-off for tests. */
export function sdkFor(baseUrl: string, rto: TestRto, options: Partial<ClientOptions> = {}): Vetrs {
  return new Vetrs({
    baseUrl,
    credentials: { clientId: rto.clientId, clientSecret: rto.clientSecret },
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...options,
  })
}

/** The minimal unit record's nine records. */
export async function minimalUnitRecord(): Promise<ResourceRecord[]> {
  const files = (await readdir(EXAMPLE_DIR)).filter((file) => file.endsWith('.json')).sort()
  return Promise.all(
    files.map(async (file) => JSON.parse(await readFile(new URL(file, EXAMPLE_DIR), 'utf8')) as ResourceRecord),
  )
}

/** A fresh unit record (test/support/world.ts: new UIDs, consistent references), typed as the SDK's records. */
export interface UnitRecord {
  student: Student
  location: DeliveryLocation
  subject: Subject
  subjectOffering: SubjectOffering
  subjectEnrolment: SubjectEnrolment
  program: Program
  programOffering: ProgramOffering
  programEnrolment: ProgramEnrolment
  subjectEnrolmentInProgram: SubjectEnrolment
}

export async function unitRecord(): Promise<UnitRecord> {
  // The fixtures are JSON read from examples/, untyped; this is the one place they are said to be records.
  return (await world()) as unknown as UnitRecord
}

/** The unit record's nine records, student first. */
export const recordsOf = (unit: UnitRecord): ResourceRecord[] => Object.values(unit)
