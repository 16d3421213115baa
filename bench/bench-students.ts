// The bulk ingestion benchmark's Students (bench/bulk.ts and its client process bench/bulk-client.ts).
import type { Student } from '../packages/client/src/index.ts'
import { UID_PLACEHOLDER } from './record.ts'
import { sampleStudentBody } from './student.ts'

const FAMILY = ['Nguyen', 'Smith', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Singh', 'Chen', 'Kelly', 'Martin']
const GIVEN = ['Mai', 'Jack', 'Olivia', 'Noah', 'Charlotte', 'Liam', 'Amelia', 'Aarav', 'Isla', 'Lucas']

/**
 * The benchmark's Students: the ~2 KB Student of bench/student.ts, each with its own UID, client
 * identifier, change tracking identifier, names, birth date and email, so that they compress like a
 * real SMS's records rather than like one record repeated. The same for every run and both modes.
 */
export function benchStudents(count: number): Student[] {
  const template = sampleStudentBody()
  return Array.from({ length: count }, (_, i) => {
    const uid = `b0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`
    const student = JSON.parse(template.replace(UID_PLACEHOLDER, uid)) as Student
    const family = FAMILY[i % FAMILY.length]!
    const given = GIVEN[Math.floor(i / FAMILY.length) % GIVEN.length]!
    return {
      ...student,
      clientIdentifier: `C${String(100000 + i).padStart(9, '0')}`,
      changeTrackingIdentifier: `sms:student:C${100000 + i}:2026-03-${String((i % 28) + 1).padStart(2, '0')}T09:${String(i % 60).padStart(2, '0')}:07Z:rev-${i % 13}`,
      firstGivenName: given,
      familyName: family,
      dateOfBirth: `${1970 + (i % 35)}-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      emailAddressPrimary: `${given}.${family}.${i}@example.com`.toLowerCase(),
    }
  })
}
