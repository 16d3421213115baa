// What both targets do per request: validate a ~2 KB record against one TypeBox schema, then write it
// with one Kysely insert. Everything here is shared by (A) and (B) so that only the platform differs.
import Type from 'typebox'
import { sql, type Kysely } from 'kysely'
import { DateString, StringEnum, Strict, Uuid4, Jurisdiction } from '../src/platform/http/types.ts'

export const BENCH_PATH = '/bench/records'

const Outcome = StringEnum([
  '20',
  '30',
  '40',
  '41',
  '51',
  '52',
  '53',
  '54',
  '60',
  '61',
  '65',
  '70',
  '81',
  '82',
  '85',
  '90',
])
const DeliveryMode = StringEnum(['YNN', 'NYN', 'NNY', 'YYN', 'YNY', 'NYY', 'YYY', 'NNN'])
const Funding = StringEnum(['11', '13', '15', '20', '30', '31', '32', '80'])

export const BenchRecord = Strict({
  recordUid: Uuid4(),
  reportingYear: Type.Integer({ minimum: 2000, maximum: 2100 }),
  jurisdiction: Jurisdiction,
  student: Strict({
    studentId: Type.String({ minLength: 1, maxLength: 20 }),
    familyName: Type.String({ minLength: 1, maxLength: 60 }),
    givenNames: Type.String({ minLength: 1, maxLength: 60 }),
    dateOfBirth: DateString(),
    sex: StringEnum(['F', 'M', 'X', '@']),
    email: Type.String({ format: 'email', maxLength: 80 }),
    address: Strict({
      line1: Type.String({ minLength: 1, maxLength: 100 }),
      suburb: Type.String({ minLength: 1, maxLength: 50 }),
      postcode: Type.String({ pattern: '^[0-9]{4}$' }),
      state: Jurisdiction,
    }),
  }),
  enrolments: Type.Array(
    Strict({
      unitCode: Type.String({ minLength: 1, maxLength: 12 }),
      courseCode: Type.String({ minLength: 1, maxLength: 10 }),
      startDate: DateString(),
      endDate: DateString(),
      outcome: Outcome,
      deliveryMode: DeliveryMode,
      fundingSource: Funding,
      scheduledHours: Type.Integer({ minimum: 0, maximum: 9999 }),
      note: Type.Optional(Type.String({ maxLength: 200 })),
    }),
    { minItems: 1, maxItems: 50 },
  ),
})
export type BenchRecord = Type.Static<typeof BenchRecord>

export const BenchCreated = Type.Object({ recordUid: Type.String() })

/** The fixed placeholder the load generator replaces with a fresh UUID v4 on every request. */
export const UID_PLACEHOLDER = '00000000-0000-4000-8000-000000000000'

/** A valid record of about 2 KB whose recordUid is the placeholder. */
export function sampleBody(): string {
  const units = ['BSBWHS311', 'BSBOPS304', 'BSBTWK301', 'BSBXCM301', 'BSBPEF301', 'BSBSUS211', 'BSBCRT311', 'BSBTEC301']
  const record: BenchRecord = {
    recordUid: UID_PLACEHOLDER,
    reportingYear: 2026,
    jurisdiction: 'NSW',
    student: {
      studentId: 'S000123456',
      familyName: 'Nguyen-Smith',
      givenNames: 'Alexandra Mary',
      dateOfBirth: '2001-07-14',
      sex: 'F',
      email: 'alexandra.nguyen-smith@example.edu.au',
      address: { line1: '12 Example Street', suburb: 'Parramatta', postcode: '2150', state: 'NSW' },
    },
    enrolments: units.map((unitCode, i) => ({
      unitCode,
      courseCode: 'BSB40120',
      startDate: `2026-02-${String(i + 2).padStart(2, '0')}`,
      endDate: `2026-06-${String(i + 10).padStart(2, '0')}`,
      outcome: i % 3 === 0 ? '20' : '70',
      deliveryMode: 'YNN',
      fundingSource: '11',
      scheduledHours: 40 + i * 5,
      note: 'Delivered face to face at the main campus',
    })),
  }
  return JSON.stringify(record)
}

/** The bench table, outside the service's own schema: Kysely sees it through withTables. */
export type BenchTables = {
  bench_record: { rto_id: string; record_uid: string; body: string }
}

export async function createBenchTable(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS bench_record (
    rto_id text NOT NULL,
    record_uid uuid NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (rto_id, record_uid)
  )`.execute(db)
}

export async function truncateBenchTable(db: Kysely<any>): Promise<void> {
  await sql`TRUNCATE bench_record`.execute(db)
}

export async function countBenchRows(db: Kysely<any>): Promise<number> {
  const result = await sql<{ n: string | number }>`SELECT count(*) AS n FROM bench_record`.execute(db)
  return Number(result.rows[0]?.n ?? 0)
}

/** The one write both targets make per request: a new row. */
export async function insertRecord(db: Kysely<BenchTables>, rtoId: string, record: BenchRecord): Promise<void> {
  await db
    .insertInto('bench_record')
    .values({ rto_id: rtoId, record_uid: record.recordUid, body: JSON.stringify(record) })
    .execute()
}
