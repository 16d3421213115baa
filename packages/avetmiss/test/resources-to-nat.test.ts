// Resources back to NAT: the round trip NAT -> resources -> NAT -> resources gives the same records
// field for field, the files change only where the mapping says they do, every record is one the
// service's upload accepts, and what cannot be written is a problem at its resource and field.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  type MappedRecord,
  type NatFileSet,
  natFileEntries,
  natToResources,
  type ResourceEntry,
  type ResourceProblem,
  type ResourceRecords,
  type ResourceType,
  resourcesToNat,
  uidOf,
} from '../src/index.ts'
import { fixtureFileSet, RTO, readFileSet } from './support/nat-fixture.ts'
import { bodyOf, byTypeAndUid, keys, mapFileSet } from './support/mapping.ts'
import { seedCodes } from './support/reference-data.ts'
import { uploadFailures } from './support/upload-schemas.ts'

const ORGANISATION = { trainingOrganisationName: 'Acme Training Institute Pty Ltd' }

/** A complete set: NAT00010 is no resource, so the organisation is given as the export command would. */
const exportOf = (records: readonly ResourceEntry[]) =>
  resourcesToNat(records, { rtoCode: RTO, codes: seedCodes, trainingOrganisation: ORGANISATION })

function reimport(fileSet: NatFileSet): MappedRecord[] {
  const read = readFileSet(fileSet)
  assert.deepEqual(read.problems, [], 'the exported set reads without a problem')
  const mapped = natToResources(read, { rtoCode: RTO, codes: seedCodes })
  assert.deepEqual(mapped.problems, [], 'the exported set maps without a problem')
  return mapped.records
}

/** Every line of a set by file and a key of the given fields, for comparing sets line by line. */
function linesByKey(fileSet: NatFileSet): Map<string, Record<string, string>> {
  const keyFields: Record<string, string[]> = {
    NAT00010: ['trainingOrganisationIdentifier'],
    NAT00020: ['deliveryLocationIdentifier'],
    NAT00030: ['programIdentifier'],
    NAT00030A: ['programIdentifier'],
    NAT00060: ['subjectIdentifier'],
    NAT00080: ['clientIdentifier'],
    NAT00085: ['clientIdentifier'],
    NAT00090: ['clientIdentifier', 'disabilityTypeIdentifier'],
    NAT00100: ['clientIdentifier', 'priorEducationalAchievementIdentifier'],
    NAT00120: ['clientIdentifier', 'subjectIdentifier', 'programIdentifier', 'activityStartDate'],
    NAT00130: ['clientIdentifier', 'programIdentifier'],
  }
  const lines = new Map<string, Record<string, string>>()
  for (const [fileId, records] of Object.entries(readFileSet(fileSet).records)) {
    for (const { values } of records as { values: Record<string, string> }[]) {
      lines.set(`${fileId} ${keyFields[fileId]!.map((field) => values[field] ?? '').join('/')}`, values)
    }
  }
  return lines
}

describe('round trip', () => {
  const first = mapFileSet()
  const exported = exportOf(first.records)
  const again = reimport(exported.fileSet)

  it('NAT -> resources -> NAT -> resources gives the same records, field for field, under the same UIDs', () => {
    assert.deepEqual(first.problems, [])
    assert.deepEqual(exported.problems, [])
    assert.equal(again.length, first.records.length)
    assert.deepEqual(byTypeAndUid(again), byTypeAndUid(first.records))
  })

  it("keeps the order of a student's disabilities through export and import (NAT00090 lines by client, in list order)", () => {
    const set = fixtureFileSet()
    set.NAT00090 = [...set.NAT00090!].reverse() // 17 before 14: not code order
    const mapped = natToResources(readFileSet(set), { rtoCode: RTO, codes: seedCodes }).records
    const student = (records: readonly MappedRecord[]) =>
      records.find((r) => r.resourceType === 'Student' && r.record.clientIdentifier === 'S001')!.record
    const disabilities = (student(mapped) as { disabilities?: string[] }).disabilities
    assert.equal(disabilities?.length, 2)
    const back = reimport(exportOf(mapped).fileSet)
    assert.deepEqual((student(back) as { disabilities?: string[] }).disabilities, disabilities)
  })

  it('writes the same files again from the re-imported records, byte for byte', () => {
    const twice = exportOf(again)
    assert.deepEqual(natFileEntries(twice.fileSet), natFileEntries(exported.fileSet))
  })

  it('changes the files only where the mapping derives or rebuilds a value', () => {
    const before = linesByKey(fixtureFileSet())
    const after = linesByKey(exported.fileSet)
    const changes: string[] = []
    for (const [key, values] of before) {
      const written = after.get(key)
      if (!written) {
        changes.push(`${key}: not written`)
        continue
      }
      for (const field of new Set([...Object.keys(values), ...Object.keys(written)])) {
        if (values[field] !== written[field]) changes.push(`${key} ${field}: ${values[field]} -> ${written[field]}`)
      }
    }
    for (const key of after.keys()) if (!before.has(key)) changes.push(`${key}: added`)
    assert.deepEqual(changes.sort(), [
      // The API has no second given name: the name for encryption is rebuilt from the two names it has.
      'NAT00080 S001 nameForEncryption: NGUYEN, MAI ANH -> Nguyen, Mai',
      'NAT00080 S002 nameForEncryption: WIRRPANDA -> Wirrpanda',
      'NAT00080 S003 nameForEncryption: SMITH, JOHN -> Smith, John',
      // Derived from the delivery mode letters on import, and written from then on.
      'NAT00120 S001/BSBCRT411/BSB40120/2026-03-02 predominantDeliveryMode: undefined -> E',
    ])
  })

  it('makes records the service upload accepts, on import and on re-import', () => {
    // The check itself refuses what the service refuses: a UID of the wrong version, an unknown field.
    assert.notDeepEqual(
      uploadFailures('Subject', {
        ...bodyOf(first.records, 'Subject', keys.subject('HLTAID011')),
        subjectUID: '0b6f8a2e-3c1d-1e5f-9a7b-8c9d0e1f2a3b',
      }),
      [],
    )
    assert.notDeepEqual(
      uploadFailures('Student', { ...bodyOf(first.records, 'Student', keys.student('S001')), nameForEncryption: 'X' }),
      [],
    )
    for (const record of [...first.records, ...again]) {
      assert.deepEqual(uploadFailures(record.resourceType, record.record), [], `${record.resourceType} ${record.uid}`)
    }
  })

  it('writes NAT00010 with the RTO code when the organisation is given, and leaves it out otherwise', () => {
    assert.deepEqual(exported.fileSet.NAT00010, [{ trainingOrganisationIdentifier: RTO, ...ORGANISATION }])
    const without = resourcesToNat(first.records, { rtoCode: RTO, codes: seedCodes })
    assert.equal(without.fileSet.NAT00010, undefined)
    assert.deepEqual(
      readFileSet(without.fileSet).problems.map((problem) => problem.file),
      ['NAT00010'],
    )
  })

  it('writes a program with its classifications to NAT00030A and one without to NAT00030', () => {
    assert.deepEqual(
      exported.fileSet.NAT00030A?.map((line) => line.programIdentifier),
      ['BSB40120'],
    )
    assert.deepEqual(
      exported.fileSet.NAT00030?.map((line) => line.programIdentifier),
      ['CHC33021'],
    )
    const classified = first.records.filter((record) => record.uid !== keys.program('CHC33021'))
    assert.equal(exportOf(classified).fileSet.NAT00030, undefined)
  })
})

describe('what cannot be written as it is', () => {
  const { records } = mapFileSet()
  const entries = (): ResourceEntry[] => structuredClone(records)
  /** The records, with the body of one changed in place. */
  const replaced = <T extends ResourceType>(type: T, uid: string, change: (record: ResourceRecords[T]) => void) =>
    entries().map((entry) => {
      if (entry.resourceType === type && uidOf(entry) === uid) change(entry.record as ResourceRecords[T])
      return entry
    })
  const fields = (problems: ResourceProblem[]) =>
    problems.map(({ resourceType, field }) => `${resourceType} ${field ?? ''}`)
  const firstActivity = keys.subjectEnrolment({
    deliveryLocationIdentifier: 'CBD01',
    clientIdentifier: 'S001',
    subjectIdentifier: 'BSBWHS411',
    programIdentifier: 'BSB40120',
    activityStartDate: '2026-02-02',
  })

  it('a second location of a subject enrolment: only the first is written, the others reported', () => {
    const { fileSet, problems } = exportOf(
      replaced('SubjectEnrolment', firstActivity, (record) => {
        record.locations.push({ deliveryLocationUID: keys.deliveryLocation('GEEL02'), hoursAtLocation: 10 })
      }),
    )
    assert.deepEqual(fields(problems), ['SubjectEnrolment locations[1].deliveryLocationUID'])
    assert.equal(problems[0]!.value, keys.deliveryLocation('GEEL02'))
    assert.equal(fileSet.NAT00120!.filter((line) => line.deliveryLocationIdentifier === 'GEEL02').length, 2)
  })

  it('a student without a client identifier is not written, nor is its activity', () => {
    const { fileSet, problems } = exportOf(
      replaced('Student', keys.student('S003'), (record) => {
        delete record.clientIdentifier
      }),
    )
    assert.deepEqual(fields(problems), ['Student clientIdentifier', 'SubjectEnrolment studentUID', 'ProgramEnrolment '])
    assert.equal(fileSet.NAT00080!.length, 2)
    assert.equal(fileSet.NAT00120!.length, 5)
  })

  it('a word with no AVETMISS code is reported and written as not stated', () => {
    const { fileSet, problems } = exportOf(
      replaced('Student', keys.student('S001'), (record) => {
        record.gender = 'Non_binary'
      }),
    )
    assert.deepEqual(fields(problems), ['Student gender'])
    assert.equal(problems[0]!.value, 'Non_binary')
    assert.equal(fileSet.NAT00080!.find((line) => line.clientIdentifier === 'S001')!.gender, '@')
  })

  it('a program enrolment without a subject enrolment is not written, its completion neither', () => {
    const without = entries().filter(
      (entry) =>
        !(
          entry.resourceType === 'SubjectEnrolment' &&
          entry.record.programEnrolmentUID === keys.programEnrolment('S001', 'BSB40120')
        ),
    )
    const { fileSet, problems } = exportOf(without)
    assert.deepEqual(fields(problems), ['ProgramEnrolment '])
    assert.equal(problems[0]!.resourceUID, keys.programEnrolment('S001', 'BSB40120'))
    assert.deepEqual(fileSet.NAT00130, [])
  })

  it('classifications of a program that goes to NAT00030 are reported as not written', () => {
    const { fileSet, problems } = exportOf(
      replaced('Program', keys.program('BSB40120'), (record) => {
        delete record.programFieldOfEducation
      }),
    )
    assert.deepEqual(fields(problems).sort(), [
      'Program occupationCode',
      'Program programLevelOfEducation',
      'Program programRecognition',
    ])
    assert.deepEqual(fileSet.NAT00030A, [])
  })

  it('a voided record is not written', () => {
    const { fileSet } = exportOf(
      replaced('Subject', keys.subject('HLTAID011'), (record) => {
        record.isVoided = true
        record.voidedReason = 'remove_duplicate_record'
      }),
    )
    assert.deepEqual(
      fileSet.NAT00060!.map((line) => line.subjectIdentifier),
      ['BSBCRT411', 'BSBWHS411', 'CHCCCS031'],
    )
  })

  it('a subject enrolment without an outcome gets the outcome of its state in force', () => {
    const { fileSet } = exportOf(
      replaced('SubjectEnrolment', firstActivity, (record) => {
        delete record.outcome
      }),
    )
    const line = fileSet.NAT00120!.find(
      (candidate) => candidate.subjectIdentifier === 'BSBWHS411' && candidate.clientIdentifier === 'S001',
    )
    assert.equal(line?.outcomeIdentifierNational, '70')
  })

  it('a record uploaded under a UID of its own comes back under its natural key UID', () => {
    const own = '0b6f8a2e-3c1d-4e5f-9a7b-8c9d0e1f2a3b'
    const { fileSet } = exportOf([
      {
        resourceType: 'Subject',
        record: { ...bodyOf(records, 'Subject', keys.subject('HLTAID011')), subjectUID: own },
      },
    ])
    const back = natToResources(readFileSet(fileSet), { rtoCode: RTO, codes: seedCodes }).records
    assert.deepEqual(
      back.map((record) => record.uid),
      [keys.subject('HLTAID011')],
    )
  })
})
