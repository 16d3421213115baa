// NAT records to the eight resources: each field mapping (the value the API gets, and the NAT file,
// line and field it is located at), identity (UIDs from natural keys, stable across imports) and the
// references between the records.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  formatNatLocation,
  locate,
  NAT_LAYOUTS,
  type NatFileId,
  natToResources,
  originIndexOf,
  RESOURCE_TYPES,
  type ResourceType,
  uidFieldOf,
} from '../src/index.ts'
import { fixtureFileSet, readFileSet } from './support/nat-fixture.ts'
import { byTypeAndUid, keys, mapFileSet, recordOf, valueAt } from './support/mapping.ts'
import { seedCodes } from './support/reference-data.ts'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

type Row = [
  type: ResourceType,
  uid: string,
  path: string,
  value: unknown,
  file: NatFileId,
  line: number,
  field?: string,
]

const location = keys.deliveryLocation('CBD01')
const business = keys.program('BSB40120')
const support = keys.program('CHC33021')
const whs = keys.subject('BSBWHS411')
const s001 = keys.student('S001')
const s003 = keys.student('S003')
const s001Business = keys.programEnrolment('S001', 'BSB40120')
const firstActivity = keys.subjectEnrolment({
  deliveryLocationIdentifier: 'CBD01',
  clientIdentifier: 'S001',
  subjectIdentifier: 'BSBWHS411',
  programIdentifier: 'BSB40120',
  activityStartDate: '2026-02-02',
})

// Every field the mapping carries, with the value the fixture gives it and where that value is.
const FIELDS: Row[] = [
  ['DeliveryLocation', location, 'deliveryLocationUID', location, 'NAT00020', 1, 'deliveryLocationIdentifier'],
  ['DeliveryLocation', location, 'deliveryLocationIdentifier', 'CBD01', 'NAT00020', 1, 'deliveryLocationIdentifier'],
  ['DeliveryLocation', location, 'deliveryLocationName', 'Melbourne CBD Campus', 'NAT00020', 1, 'deliveryLocationName'],
  [
    'DeliveryLocation',
    location,
    'address.suburbLocalityOrTown',
    'Melbourne',
    'NAT00020',
    1,
    'addressSuburbLocalityOrTown',
  ],
  ['DeliveryLocation', location, 'address.postcode', '3000', 'NAT00020', 1, 'postcode'],
  ['DeliveryLocation', location, 'address.state', 'VIC', 'NAT00020', 1, 'stateIdentifier'],
  ['DeliveryLocation', location, 'address.country', '1101', 'NAT00020', 1, 'countryIdentifier'],

  ['Program', business, 'programIdentifier', 'BSB40120', 'NAT00030A', 1, 'programIdentifier'],
  ['Program', business, 'programName', 'Certificate IV in Business', 'NAT00030A', 1, 'programName'],
  ['Program', business, 'nominalHours', 260, 'NAT00030A', 1, 'nominalHours'],
  [
    'Program',
    business,
    'programRecognition',
    'Training_package_qualification',
    'NAT00030A',
    1,
    'programRecognitionIdentifier',
  ],
  [
    'Program',
    business,
    'programLevelOfEducation',
    'Certificate_IV',
    'NAT00030A',
    1,
    'programLevelOfEducationIdentifier',
  ],
  ['Program', business, 'programFieldOfEducation', '0803', 'NAT00030A', 1, 'programFieldOfEducationIdentifier'],
  ['Program', business, 'occupationCode', '511112', 'NAT00030A', 1, 'anzscoIdentifier'],
  ['Program', business, 'vocationalTrainingIndicator', true, 'NAT00030A', 1, 'vetFlag'],
  ['Program', support, 'nominalHours', 890, 'NAT00030', 1, 'nominalHours'],
  // NAT00030 has no VET flag: a training.gov.au program is VET, and the value comes from no field.
  ['Program', support, 'vocationalTrainingIndicator', true, 'NAT00030', 1],

  ['Subject', whs, 'subjectIdentifier', 'BSBWHS411', 'NAT00060', 1, 'subjectIdentifier'],
  ['Subject', whs, 'subjectName', 'Implement and monitor WHS policies', 'NAT00060', 1, 'subjectName'],
  ['Subject', whs, 'subjectFieldOfEducation', '061301', 'NAT00060', 1, 'subjectFieldOfEducationIdentifier'],
  ['Subject', whs, 'nominalHours', 40, 'NAT00060', 1, 'nominalHours'],
  ['Subject', keys.subject('HLTAID011'), 'vocationalTrainingIndicator', false, 'NAT00060', 4, 'vetFlag'],

  ['Student', s001, 'studentUID', s001, 'NAT00080', 1, 'clientIdentifier'],
  ['Student', s001, 'clientIdentifier', 'S001', 'NAT00080', 1, 'clientIdentifier'],
  ['Student', s001, 'dateOfBirth', '1998-04-17', 'NAT00080', 1, 'dateOfBirth'],
  ['Student', s001, 'gender', 'Female', 'NAT00080', 1, 'gender'],
  ['Student', s001, 'permanentAddress.flatUnitDetails', 'Unit 4', 'NAT00080', 1, 'addressFlatUnitDetails'],
  ['Student', s001, 'permanentAddress.streetNumber', '12', 'NAT00080', 1, 'addressStreetNumber'],
  ['Student', s001, 'permanentAddress.streetName', 'Sydney Road', 'NAT00080', 1, 'addressStreetName'],
  ['Student', s001, 'permanentAddress.suburbLocalityOrTown', 'Brunswick', 'NAT00080', 1, 'addressSuburbLocalityOrTown'],
  ['Student', s001, 'permanentAddress.postcode', '3056', 'NAT00080', 1, 'postcode'],
  ['Student', s001, 'permanentAddress.state', 'VIC', 'NAT00080', 1, 'stateIdentifier'],
  [
    'Student',
    s001,
    'indigenousStatus',
    'Neither_Aboriginal_nor_Torres_Strait_Islander',
    'NAT00080',
    1,
    'indigenousStatusIdentifier',
  ],
  ['Student', s001, 'hasDisability', true, 'NAT00080', 1, 'disabilityFlag'],
  ['Student', s001, 'hasPriorEducationalAchievement', true, 'NAT00080', 1, 'priorEducationalAchievementFlag'],
  ['Student', s001, 'highestSchoolLevelCompleted', 'Year_12', 'NAT00080', 1, 'highestSchoolLevelCompletedIdentifier'],
  ['Student', s001, 'isAtSchool', false, 'NAT00080', 1, 'atSchoolFlag'],
  ['Student', s001, 'languageSpokenAtHome', '6302', 'NAT00080', 1, 'languageIdentifier'],
  ['Student', s001, 'countryOfBirth', '5105', 'NAT00080', 1, 'countryIdentifier'],
  ['Student', s001, 'labourForceStatus', 'Part_time_employee', 'NAT00080', 1, 'labourForceStatusIdentifier'],
  ['Student', s001, 'uniqueStudentIdentifier', '3AW88YH9U5', 'NAT00080', 1, 'uniqueStudentIdentifier'],
  ['Student', s001, 'surveyAvailability', 'Available', 'NAT00080', 1, 'surveyContactStatus'],
  ['Student', s001, 'clientTitle', 'Ms', 'NAT00085', 1, 'clientTitle'],
  ['Student', s001, 'firstGivenName', 'Mai', 'NAT00085', 1, 'clientFirstGivenName'],
  ['Student', s001, 'familyName', 'Nguyen', 'NAT00085', 1, 'clientFamilyName'],
  ['Student', s001, 'postalAddress.postalDeliveryBox', 'PO Box 123', 'NAT00085', 1, 'addressPostalDeliveryBox'],
  [
    'Student',
    s001,
    'postalAddress.suburbLocalityOrTown',
    'Brunswick',
    'NAT00085',
    1,
    'addressPostalSuburbLocalityOrTown',
  ],
  ['Student', s001, 'postalAddress.postcode', '3056', 'NAT00085', 1, 'postcode'],
  ['Student', s001, 'postalAddress.state', 'VIC', 'NAT00085', 1, 'stateIdentifier'],
  ['Student', s001, 'emailAddressPrimary', 'mai.nguyen@example.com', 'NAT00085', 1, 'emailAddress'],
  ['Student', s001, 'emailAddressAlternative', 'mai@example.org', 'NAT00085', 1, 'emailAddressAlternative'],
  ['Student', s001, 'telephoneNumberMobile', '0412 345 678', 'NAT00085', 1, 'telephoneNumberMobile'],
  ['Student', s001, 'disabilities[0]', 'Learning', 'NAT00090', 1, 'disabilityTypeIdentifier'],
  ['Student', s001, 'disabilities[1]', 'Vision', 'NAT00090', 2, 'disabilityTypeIdentifier'],
  [
    'Student',
    s001,
    'priorEducationalAchievements[0].priorEducationalAchievement',
    'Certificate_I',
    'NAT00100',
    1,
    'priorEducationalAchievementIdentifier',
  ],
  [
    'Student',
    s001,
    'priorEducationalAchievements[0].recognition',
    'Australian',
    'NAT00100',
    1,
    'priorEducationalAchievementRecognitionIdentifier',
  ],
  ['Student', s003, 'telephoneNumberHome', '03 5222 1234', 'NAT00085', 3, 'telephoneNumberHome'],
  ['Student', s003, 'telephoneNumberWork', '03 5222 9999', 'NAT00085', 3, 'telephoneNumberWork'],
  // "Not stated" (@@) where the dataset has a word for it.
  ['Student', s003, 'permanentAddress.state', 'No_value', 'NAT00080', 3, 'stateIdentifier'],

  ['ProgramOffering', keys.programOffering('BSB40120'), 'programUID', business, 'NAT00120', 1, 'programIdentifier'],
  [
    'SubjectOffering',
    keys.subjectOffering('BSBWHS411', 'BSB40120', 'CBD01'),
    'subjectUID',
    whs,
    'NAT00120',
    1,
    'subjectIdentifier',
  ],
  [
    'SubjectOffering',
    keys.subjectOffering('BSBWHS411', 'BSB40120', 'CBD01'),
    'programOfferingUID',
    keys.programOffering('BSB40120'),
    'NAT00120',
    1,
    'programIdentifier',
  ],
  [
    'SubjectOffering',
    keys.subjectOffering('BSBWHS411', 'BSB40120', 'CBD01'),
    'deliveryLocationUID',
    location,
    'NAT00120',
    1,
    'deliveryLocationIdentifier',
  ],

  ['ProgramEnrolment', s001Business, 'studentUID', s001, 'NAT00120', 1, 'clientIdentifier'],
  [
    'ProgramEnrolment',
    s001Business,
    'programOfferingUID',
    keys.programOffering('BSB40120'),
    'NAT00120',
    1,
    'programIdentifier',
  ],
  ['ProgramEnrolment', s001Business, 'commencementDate', '2026-02-02', 'NAT00120', 1, 'activityStartDate'],
  ['ProgramEnrolment', s001Business, 'commencingProgram', 'Commencing', 'NAT00120', 1, 'commencingProgramIdentifier'],
  [
    'ProgramEnrolment',
    s001Business,
    'fundingSourceNational',
    'Commonwealth_and_state_general_purpose_recurrent',
    'NAT00120',
    1,
    'fundingSourceNational',
  ],
  ['ProgramEnrolment', s001Business, 'studyReason', 'To_get_a_job', 'NAT00120', 1, 'studyReasonIdentifier'],
  [
    'ProgramEnrolment',
    s001Business,
    'programCompletion.dateProgramCompleted',
    '2026-06-30',
    'NAT00130',
    1,
    'dateProgramCompleted',
  ],
  ['ProgramEnrolment', s001Business, 'programCompletion.isParchmentIssued', true, 'NAT00130', 1, 'issuedFlag'],
  [
    'ProgramEnrolment',
    s001Business,
    'programCompletion.parchmentIssueDate',
    '2026-07-10',
    'NAT00130',
    1,
    'parchmentIssueDate',
  ],
  ['ProgramEnrolment', s001Business, 'programCompletion.parchmentNumber', 'P-0001', 'NAT00130', 1, 'parchmentNumber'],
  [
    'ProgramEnrolment',
    s001Business,
    'lifecycle[0].studentActivityDate',
    '2026-02-02',
    'NAT00120',
    1,
    'activityStartDate',
  ],
  [
    'ProgramEnrolment',
    keys.programEnrolment('S003', 'CHC33021'),
    'trainingContractIdentifier',
    'TC12345',
    'NAT00120',
    4,
    'trainingContractIdentifier',
  ],
  [
    'ProgramEnrolment',
    keys.programEnrolment('S003', 'CHC33021'),
    'apprenticeshipClientIdentifier',
    'A998877',
    'NAT00120',
    4,
    'clientIdentifierApprenticeships',
  ],

  ['SubjectEnrolment', firstActivity, 'studentUID', s001, 'NAT00120', 1, 'clientIdentifier'],
  [
    'SubjectEnrolment',
    firstActivity,
    'subjectOfferingUID',
    keys.subjectOffering('BSBWHS411', 'BSB40120', 'CBD01'),
    'NAT00120',
    1,
    'subjectIdentifier',
  ],
  ['SubjectEnrolment', firstActivity, 'programEnrolmentUID', s001Business, 'NAT00120', 1, 'programIdentifier'],
  ['SubjectEnrolment', firstActivity, 'activityStartDate', '2026-02-02', 'NAT00120', 1, 'activityStartDate'],
  ['SubjectEnrolment', firstActivity, 'activityEndDate', '2026-05-29', 'NAT00120', 1, 'activityEndDate'],
  ['SubjectEnrolment', firstActivity, 'deliveryMode.internal', true, 'NAT00120', 1, 'deliveryModeIdentifier'],
  ['SubjectEnrolment', firstActivity, 'deliveryMode.external', false, 'NAT00120', 1, 'deliveryModeIdentifier'],
  ['SubjectEnrolment', firstActivity, 'deliveryMode.workplace', false, 'NAT00120', 1, 'deliveryModeIdentifier'],
  ['SubjectEnrolment', firstActivity, 'predominantDeliveryMode', 'Internal', 'NAT00120', 1, 'predominantDeliveryMode'],
  [
    'SubjectEnrolment',
    firstActivity,
    'locations[0].deliveryLocationUID',
    location,
    'NAT00120',
    1,
    'deliveryLocationIdentifier',
  ],
  ['SubjectEnrolment', firstActivity, 'scheduledHours', 40, 'NAT00120', 1, 'scheduledHours'],
  ['SubjectEnrolment', firstActivity, 'hoursAttended', 38, 'NAT00120', 1, 'hoursAttended'],
  [
    'SubjectEnrolment',
    firstActivity,
    'fundingSourceNational',
    'Commonwealth_and_state_general_purpose_recurrent',
    'NAT00120',
    1,
    'fundingSourceNational',
  ],
  ['SubjectEnrolment', firstActivity, 'commencingProgram', 'Commencing', 'NAT00120', 1, 'commencingProgramIdentifier'],
  ['SubjectEnrolment', firstActivity, 'studyReason', 'To_get_a_job', 'NAT00120', 1, 'studyReasonIdentifier'],
  ['SubjectEnrolment', firstActivity, 'isVetInSchools', false, 'NAT00120', 1, 'vetInSchoolsFlag'],
  [
    'SubjectEnrolment',
    firstActivity,
    'specificFundingIdentifier',
    'SKILLS01',
    'NAT00120',
    1,
    'specificFundingIdentifier',
  ],
  [
    'SubjectEnrolment',
    firstActivity,
    'outcome.outcomeIdentifierNational',
    'Competency_achieved',
    'NAT00120',
    1,
    'outcomeIdentifierNational',
  ],
  [
    'SubjectEnrolment',
    firstActivity,
    'outcome.outcomeIdentifierTrainingOrganisation',
    'PA',
    'NAT00120',
    1,
    'outcomeIdentifierTrainingOrganisation',
  ],
  [
    'SubjectEnrolment',
    firstActivity,
    'lifecycle[0].studentStatus',
    'Commenced',
    'NAT00120',
    1,
    'outcomeIdentifierNational',
  ],
  [
    'SubjectEnrolment',
    firstActivity,
    'lifecycle[0].studentActivityDate',
    '2026-02-02',
    'NAT00120',
    1,
    'activityStartDate',
  ],
  // Predominant delivery mode left blank: derived from the one mode the letters name (NYN).
  [
    'SubjectEnrolment',
    keys.subjectEnrolment({
      deliveryLocationIdentifier: 'CBD01',
      clientIdentifier: 'S001',
      subjectIdentifier: 'BSBCRT411',
      programIdentifier: 'BSB40120',
      activityStartDate: '2026-03-02',
    }),
    'predominantDeliveryMode',
    'External',
    'NAT00120',
    2,
    'deliveryModeIdentifier',
  ],
  [
    'SubjectEnrolment',
    keys.subjectEnrolment({
      deliveryLocationIdentifier: 'CBD01',
      clientIdentifier: 'S003',
      subjectIdentifier: 'CHCCCS031',
      programIdentifier: 'CHC33021',
      activityStartDate: '2026-07-01',
    }),
    'schoolType',
    'Government',
    'NAT00120',
    4,
    'schoolTypeIdentifier',
  ],
  [
    'SubjectEnrolment',
    keys.subjectEnrolment({
      deliveryLocationIdentifier: 'CBD01',
      clientIdentifier: 'S003',
      subjectIdentifier: 'CHCCCS031',
      programIdentifier: 'CHC33021',
      activityStartDate: '2026-07-01',
    }),
    'isVetInSchools',
    true,
    'NAT00120',
    4,
    'vetInSchoolsFlag',
  ],
]

describe('natToResources: each field', () => {
  const { records, problems } = mapFileSet()
  const index = originIndexOf(records)

  it('maps the fixture without a problem', () => {
    assert.deepEqual(problems, [])
  })

  for (const [type, uid, path, value, fileId, line, field] of FIELDS) {
    it(`${type}.${path} is ${JSON.stringify(value)}, from ${fileId} line ${line}${field ? ` ${field}` : ''}`, () => {
      assert.deepEqual(valueAt(recordOf(records, type, uid).record, path), value)
      const label = NAT_LAYOUTS[fileId].fields.find((candidate) => candidate.name === field)?.label
      assert.deepEqual(
        locate(index, type, uid, path),
        field ? { fileId, file: `${fileId}.txt`, line, field, label } : { fileId, file: `${fileId}.txt`, line },
      )
    })
  }

  it('leaves out what NAT does not state, and what the API has no NAT source for', () => {
    const unstated = recordOf(records, 'Student', keys.student('S002')).record
    // S002 states nothing but its name: @-filled codes with a No_value word become it, the others
    // (language, country, flags, date of birth, postcode) are left out, and so is the address.
    assert.deepEqual(unstated, {
      studentUID: keys.student('S002'),
      clientIdentifier: 'S002',
      familyName: 'Wirrpanda',
      gender: 'No_value',
      indigenousStatus: 'No_value',
      highestSchoolLevelCompleted: 'No_value',
      labourForceStatus: 'No_value',
    })
    const offering = recordOf(records, 'SubjectOffering', keys.subjectOffering('HLTAID011', '', 'GEEL02')).record
    assert.deepEqual(offering, {
      subjectOfferingUID: keys.subjectOffering('HLTAID011', '', 'GEEL02'),
      subjectUID: keys.subject('HLTAID011'),
      deliveryLocationUID: keys.deliveryLocation('GEEL02'),
    })
    for (const record of records) {
      for (const field of [
        'changeTrackingIdentifier',
        'isVoided',
        'termAddress',
        'expectedCompletionDate',
        'subjectType',
      ]) {
        assert.equal(field in record.record, false, `${record.resourceType} has ${field}`)
      }
    }
  })
})

describe('natToResources: identity and references', () => {
  const { records } = mapFileSet()

  it('makes every record of the eight types, each UID a UUID version 4 in its UID field', () => {
    const counts = Object.fromEntries(RESOURCE_TYPES.map((type) => [type, 0]))
    for (const record of records) {
      counts[record.resourceType]! += 1
      assert.match(record.uid, UUID_V4)
      assert.equal((record.record as unknown as Record<string, string>)[uidFieldOf(record.resourceType)], record.uid)
    }
    assert.deepEqual(counts, {
      DeliveryLocation: 2,
      Program: 2,
      Subject: 4,
      Student: 3,
      ProgramOffering: 2,
      SubjectOffering: 5,
      ProgramEnrolment: 4,
      SubjectEnrolment: 6,
    })
  })

  it('emits what a record refers to before the record', () => {
    const order = records.map((record) => RESOURCE_TYPES.indexOf(record.resourceType))
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    )
  })

  it('resolves every reference to a mapped record of the referenced type', () => {
    const held = new Set(records.map((record) => `${record.resourceType} ${record.uid}`))
    const references: [ResourceType, string, ResourceType][] = [
      ['ProgramOffering', 'programUID', 'Program'],
      ['SubjectOffering', 'subjectUID', 'Subject'],
      ['SubjectOffering', 'programOfferingUID', 'ProgramOffering'],
      ['SubjectOffering', 'deliveryLocationUID', 'DeliveryLocation'],
      ['ProgramEnrolment', 'studentUID', 'Student'],
      ['ProgramEnrolment', 'programOfferingUID', 'ProgramOffering'],
      ['SubjectEnrolment', 'studentUID', 'Student'],
      ['SubjectEnrolment', 'subjectOfferingUID', 'SubjectOffering'],
      ['SubjectEnrolment', 'programEnrolmentUID', 'ProgramEnrolment'],
      ['SubjectEnrolment', 'locations[0].deliveryLocationUID', 'DeliveryLocation'],
    ]
    let resolved = 0
    for (const [type, path, target] of references) {
      for (const record of records.filter((candidate) => candidate.resourceType === type)) {
        const uid = valueAt(record.record, path)
        if (uid === undefined) continue
        assert.ok(held.has(`${target} ${uid}`), `${type} ${record.uid} ${path} ${uid} is not a mapped ${target}`)
        resolved += 1
      }
    }
    assert.ok(resolved >= 30, `only ${resolved} references checked`)
  })

  it('gives the same records and UIDs on a second import of the same files', () => {
    assert.deepEqual(byTypeAndUid(mapFileSet().records), byTypeAndUid(records))
  })

  it('gives the same UIDs whatever the order of the lines in the files', () => {
    const reversed = Object.fromEntries(
      Object.entries(fixtureFileSet()).map(([fileId, lines]) => [fileId, [...(lines ?? [])].reverse()]),
    )
    assert.deepEqual(
      [...byTypeAndUid(mapFileSet(reversed).records).keys()].sort(),
      [...byTypeAndUid(records).keys()].sort(),
    )
  })

  it('gives another RTO other UIDs for the same identifiers', () => {
    const other = natToResources(readFileSet(fixtureFileSet()), { rtoCode: '90002', codes: seedCodes })
    const ours = new Set(records.map((record) => record.uid))
    assert.equal(other.records.length, records.length)
    assert.ok(other.records.every((record) => !ours.has(record.uid)))
  })
})

describe('locate', () => {
  const { records } = mapFileSet()
  const index = originIndexOf(records)

  it('reads a validation result accessPath', () => {
    const found = locate(index, 'SubjectEnrolment', firstActivity, '$.locations[0].deliveryLocationUID')
    assert.equal(found?.field, 'deliveryLocationIdentifier')
    assert.equal(
      formatNatLocation(locate(index, 'SubjectEnrolment', firstActivity, '$.activityStartDate')!),
      'NAT00120 line 1 field Activity start date',
    )
  })

  it('places a whole object where its first part came from, and an item below a known one where the item came from', () => {
    assert.equal(locate(index, 'SubjectEnrolment', firstActivity, 'deliveryMode')?.field, 'deliveryModeIdentifier')
    assert.equal(locate(index, 'Student', s001, '$.disabilities')?.line, 1)
    assert.equal(locate(index, 'Student', s001, '$.priorEducationalAchievements[0]')?.fileId, 'NAT00100')
  })

  it('falls back to the record line for a field NAT does not give, and knows no record it was not given', () => {
    assert.deepEqual(locate(index, 'Student', s001, '$.changeTrackingIdentifier'), {
      fileId: 'NAT00080',
      file: 'NAT00080.txt',
      line: 1,
    })
    assert.equal(formatNatLocation(locate(index, 'Student', s001)!), 'NAT00080 line 1')
    assert.equal(locate(index, 'Student', keys.student('S999'), 'familyName'), undefined)
  })

  it('finds a record whatever the case of the UID', () => {
    assert.equal(locate(index, 'Student', s001.toUpperCase(), 'familyName')?.fileId, 'NAT00085')
  })

  it('shares one field map between records whose fields come from the same places, each still located on its own line', () => {
    const cbd = recordOf(records, 'DeliveryLocation', location)
    const geelong = recordOf(records, 'DeliveryLocation', keys.deliveryLocation('GEEL02'))
    assert.equal(cbd.origin.fields, geelong.origin.fields)
    assert.equal(locate(index, 'DeliveryLocation', cbd.uid, 'address.postcode')?.line, 1)
    assert.equal(locate(index, 'DeliveryLocation', geelong.uid, 'address.postcode')?.line, 2)
  })

  it('lists every line an enrolment or offering was built from, the defining one first', () => {
    const enrolment = recordOf(records, 'ProgramEnrolment', s001Business)
    assert.deepEqual(
      enrolment.origin.lines.map(({ fileId, line }) => `${fileId}:${line}`),
      ['NAT00120:1', 'NAT00120:2', 'NAT00130:1'],
    )
    const offering = recordOf(records, 'SubjectOffering', keys.subjectOffering('BSBWHS411', 'BSB40120', 'CBD01'))
    assert.deepEqual(
      offering.origin.lines.map(({ fileId, line }) => `${fileId}:${line}`),
      ['NAT00120:1', 'NAT00120:5'],
    )
  })
})
