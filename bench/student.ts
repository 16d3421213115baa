// The second comparison (issue 3): the real service's Student upload into a transaction batch. The
// body is the minimal unit record's Student, enlarged with valid optional fields to a realistic
// ~2 KB, its studentUID replaced by a fresh UUID v4 on every request so that every upload creates a
// new record (201). The batch is created once through the API; between runs its records are deleted.
import { readFileSync } from 'node:fs'
import { sql, type Kysely } from 'kysely'
import { UID_PLACEHOLDER } from './record.ts'

const API = '/vet-provider/v1'
export const UPLOAD_JURISDICTION = 'NSW'

export const uploadPath = (token: string) =>
  `${API}/${UPLOAD_JURISDICTION}/transaction-batch/${encodeURIComponent(token)}/student`

/** A valid Student of about 2 KB whose studentUID is the placeholder the load generator replaces. */
export function sampleStudentBody(): string {
  const example = JSON.parse(
    readFileSync(new URL('../examples/minimal-unit-record/student.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>
  // In the schema's order: the example's fields, with the optional ones a real SMS also fills.
  const student = {
    studentUID: UID_PLACEHOLDER,
    changeTrackingIdentifier: 'sms:student:C000012345:2026-03-02T09:21:07Z:rev-7',
    clientIdentifier: example.clientIdentifier,
    clientTitle: example.clientTitle,
    firstGivenName: example.firstGivenName,
    familyName: example.familyName,
    dateOfBirth: example.dateOfBirth,
    gender: example.gender,
    permanentAddress: { buildingPropertyName: 'Riverside Apartments', ...(example.permanentAddress as object) },
    termAddress: {
      buildingPropertyName: 'Western Sydney Student Village',
      flatUnitDetails: 'Room 214',
      streetNumber: '169',
      streetName: 'Victoria Road',
      suburbLocalityOrTown: 'Rydalmere',
      postcode: '2116',
      state: 'NSW',
      country: '1101',
    },
    postalAddress: { buildingPropertyName: 'Parramatta Post Shop', ...(example.postalAddress as object) },
    indigenousStatus: example.indigenousStatus,
    hasDisability: true,
    disabilities: ['Hearing_deaf', 'Learning', 'Medical_condition', 'Vision'],
    hasPriorEducationalAchievement: true,
    priorEducationalAchievements: [
      ...(example.priorEducationalAchievements as object[]),
      { priorEducationalAchievement: 'Certificate_II', recognition: 'Australian' },
      { priorEducationalAchievement: 'Certificate_I', recognition: 'Australian' },
      { priorEducationalAchievement: 'Certificate_IV', recognition: 'Australian_equivalent' },
      { priorEducationalAchievement: 'Miscellaneous_education', recognition: 'International' },
    ],
    highestSchoolLevelCompleted: example.highestSchoolLevelCompleted,
    highestSchoolLevelCompletedYear: example.highestSchoolLevelCompletedYear,
    isAtSchool: example.isAtSchool,
    languageSpokenAtHome: example.languageSpokenAtHome,
    countryOfBirth: example.countryOfBirth,
    labourForceStatus: example.labourForceStatus,
    uniqueStudentIdentifier: example.uniqueStudentIdentifier,
    surveyAvailability: example.surveyAvailability,
    emailAddressPrimary: example.emailAddressPrimary,
    emailAddressAlternative: 'mai.nguyen.personal@example.net',
    telephoneNumberHome: '02 9635 1234',
    telephoneNumberWork: '+61 2 9687 5500',
    telephoneNumberMobile: example.telephoneNumberMobile,
    isVoided: false,
  }
  const body = JSON.stringify(student)
  if (body.split(UID_PLACEHOLDER).length !== 2)
    throw new Error('the Student body must carry the UID placeholder exactly once')
  return body
}

/** The same Student, structurally invalid (a gender that is not in the list): the service must answer 400. */
export function invalidStudentBody(body: string): string {
  const invalid = body.replace('"gender":"Female"', '"gender":"female"')
  if (invalid === body) throw new Error('the Student body has no "gender":"Female" to make invalid')
  return invalid
}

/** Creates the transaction batch every upload goes into; answers its token. */
export async function createBatch(baseUrl: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${baseUrl}${API}/${UPLOAD_JURISDICTION}/transaction-batch`, {
    method: 'POST',
    headers,
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  if (response.status !== 201)
    throw new Error(`creating the transaction batch gave ${response.status}, expected 201: ${text}`)
  const token = (JSON.parse(text) as { transactionBatchToken?: unknown }).transactionBatchToken
  if (typeof token !== 'string' || token === '')
    throw new Error(`creating the transaction batch gave no transactionBatchToken: ${text}`)
  return token
}

/**
 * Deletes the batch's records, then vacuums the two tables the upload writes (every upload also bumps
 * the batch row), so that every run starts from the same state, as TRUNCATE does for the bare route.
 */
export async function clearBatchRecords(db: Kysely<any>, token: string): Promise<void> {
  await sql`DELETE FROM batch_record WHERE transaction_batch_token = ${token}`.execute(db)
  await sql`VACUUM batch_record, transaction_batch`.execute(db)
}

export async function countBatchRecords(db: Kysely<any>, token: string): Promise<number> {
  const result = await sql<{
    n: string | number
  }>`SELECT count(*) AS n FROM batch_record WHERE transaction_batch_token = ${token}`.execute(db)
  return Number(result.rows[0]?.n ?? 0)
}
