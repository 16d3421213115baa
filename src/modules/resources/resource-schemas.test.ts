// The eight resource schemas (spec: Resources and their fields) and the minimal unit record
// (spec: Standard workflows 2), checked with the same Ajv configuration the request bodies get.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import type { ValidateFunction } from 'ajv'
import { createAjv } from '../../platform/schema/ajv.ts'
import { checkStrings } from '../../platform/schema/strings.ts'
import type { FieldError } from '../../platform/http/problem.ts'
import { referenceFields, type ResourceType } from '../../domain/resource-types.ts'
import { resourceDefinitions } from './index.ts'

type Json = Record<string, any>

const exampleDir = new URL('../../../examples/minimal-unit-record/', import.meta.url)
const exampleFiles: Record<string, ResourceType> = {
  'student.json': 'Student',
  'deliverylocation.json': 'DeliveryLocation',
  'subject.json': 'Subject',
  'subjectoffering.json': 'SubjectOffering',
  'subjectenrolment.json': 'SubjectEnrolment',
  'program.json': 'Program',
  'programoffering.json': 'ProgramOffering',
  'programenrolment.json': 'ProgramEnrolment',
  'subjectenrolment-in-program.json': 'SubjectEnrolment',
}
const readExample = (file: string): Json => JSON.parse(readFileSync(new URL(file, exampleDir), 'utf8'))
const exampleOf = (resourceType: ResourceType): Json => {
  const file = Object.keys(exampleFiles).find((name) => exampleFiles[name] === resourceType)!
  return readExample(file)
}

const ajv = createAjv(false)
const validators = new Map<ResourceType, ValidateFunction>(
  resourceDefinitions.map((d) => [d.resourceType, ajv.compile(d.schema)]),
)
const definitionOf = (resourceType: ResourceType) => resourceDefinitions.find((d) => d.resourceType === resourceType)!

/** Validates a body; failures read "instancePath keyword", and "instancePath required:property" for a missing one. */
function failures(resourceType: ResourceType, body: unknown): string[] {
  const validate = validators.get(resourceType)!
  return validate(body)
    ? []
    : (validate.errors ?? []).map((e) =>
        e.keyword === 'required'
          ? `${e.instancePath} required:${String(e.params.missingProperty)}`
          : `${e.instancePath} ${e.keyword}`,
      )
}
const assertValid = (resourceType: ResourceType, body: unknown) => assert.deepEqual(failures(resourceType, body), [])
const assertInvalid = (resourceType: ResourceType, body: unknown, expected: string) =>
  assert.ok(
    failures(resourceType, body).includes(expected),
    `expected "${expected}" in ${JSON.stringify(failures(resourceType, body))}`,
  )

const USI_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'
/** Luhn mod 32 over the USI alphabet: the check character makes the weighted sum a multiple of 32. */
function hasValidUsiCheckCharacter(usi: string): boolean {
  let factor = 1
  let sum = 0
  for (let i = usi.length - 1; i >= 0; i--) {
    const addend = factor * USI_ALPHABET.indexOf(usi[i]!)
    sum += Math.floor(addend / 32) + (addend % 32)
    factor = factor === 1 ? 2 : 1
  }
  return sum % 32 === 0
}

/** Values at a reference path such as `locations[].deliveryLocationUID`. */
function valuesAt(record: Json, field: string): unknown[] {
  const [head, ...rest] = field.split('.')
  if (head!.endsWith('[]'))
    return ((record[head!.slice(0, -2)] ?? []) as Json[]).flatMap((item) => valuesAt(item, rest.join('.')))
  return rest.length > 0
    ? valuesAt(record[head!] ?? {}, rest.join('.'))
    : record[head!] === undefined
      ? []
      : [record[head!]]
}

describe('resource definitions', () => {
  it('eight resources, each with its spec segment and its UID field as path parameter', () => {
    assert.deepEqual(
      resourceDefinitions.map((d) => [d.segment, d.resourceType, d.uidField]),
      [
        ['student', 'Student', 'studentUID'],
        ['deliverylocation', 'DeliveryLocation', 'deliveryLocationUID'],
        ['program', 'Program', 'programUID'],
        ['programoffering', 'ProgramOffering', 'programOfferingUID'],
        ['programenrolment', 'ProgramEnrolment', 'programEnrolmentUID'],
        ['subject', 'Subject', 'subjectUID'],
        ['subjectoffering', 'SubjectOffering', 'subjectOfferingUID'],
        ['subjectenrolment', 'SubjectEnrolment', 'subjectEnrolmentUID'],
      ],
    )
  })

  it('every reference field names a UID field of the resource it references', () => {
    for (const [resourceType, fields] of Object.entries(referenceFields)) {
      for (const { field, references } of fields) {
        assert.equal(
          field.split('.').at(-1)!.replace('[]', ''),
          definitionOf(references).uidField,
          `${resourceType}.${field}`,
        )
      }
    }
  })
})

describe('minimal unit record (examples/minimal-unit-record)', () => {
  it('has one file per resource of the subject and program paths, and nothing else', () => {
    const jsonFiles = readdirSync(exampleDir)
      .filter((name) => name.endsWith('.json'))
      .sort()
    assert.deepEqual(jsonFiles, Object.keys(exampleFiles).sort())
  })

  for (const [file, resourceType] of Object.entries(exampleFiles)) {
    it(`${file} passes every structural check of a ${resourceType}`, () => assertValid(resourceType, readExample(file)))

    it(`${file} passes the string rules (no surrounding spaces, tabs or line breaks)`, () => {
      const found: FieldError[] = []
      checkStrings(readExample(file), definitionOf(resourceType).schema as never, '$', found)
      assert.deepEqual(found, [])
    })
  }

  it('every reference points at a UID in these files', () => {
    const uids = new Map<string, ResourceType>()
    for (const [file, resourceType] of Object.entries(exampleFiles)) {
      const uid = readExample(file)[definitionOf(resourceType).uidField] as string
      assert.ok(!uids.has(uid), `${file}: UID ${uid} used twice`)
      uids.set(uid, resourceType)
    }
    for (const [file, resourceType] of Object.entries(exampleFiles)) {
      for (const { field, references } of referenceFields[resourceType]) {
        for (const value of valuesAt(readExample(file), field))
          assert.equal(uids.get(value as string), references, `${file}: ${field} ${value}`)
      }
    }
  })

  it('the subject enrolment in the program references the same student, a subject offering and the program enrolment', () => {
    const enrolment = readExample('subjectenrolment-in-program.json')
    assert.equal(enrolment.studentUID, readExample('student.json').studentUID)
    assert.equal(enrolment.subjectOfferingUID, readExample('subjectoffering.json').subjectOfferingUID)
    assert.equal(enrolment.programEnrolmentUID, readExample('programenrolment.json').programEnrolmentUID)
  })

  it('BRTS01180: the student is available for survey and gives a primary email', () => {
    const student = readExample('student.json')
    assert.equal(student.surveyAvailability, 'Available')
    assert.ok(student.emailAddressPrimary)
  })

  it('the USI has a valid Luhn mod 32 check character (and a changed character does not)', () => {
    const usi = readExample('student.json').uniqueStudentIdentifier as string
    assert.ok(hasValidUsiCheckCharacter(usi))
    assert.ok(!hasValidUsiCheckCharacter(usi.slice(0, 9) + (usi[9] === '2' ? '3' : '2')))
  })

  it('every enrolment has one lifecycle state, Registered or Commenced, dated in 2026', () => {
    for (const file of ['subjectenrolment.json', 'programenrolment.json', 'subjectenrolment-in-program.json']) {
      const { lifecycle } = readExample(file)
      assert.equal(lifecycle.length, 1, file)
      assert.ok(['Registered', 'Commenced'].includes(lifecycle[0].studentStatus), file)
      assert.match(lifecycle[0].studentActivityDate, /^2026-/, file)
    }
  })
})

for (const { resourceType, uidField } of resourceDefinitions) {
  describe(`${resourceType} schema`, () => {
    it(`common fields: ${uidField} is required`, () => {
      const { [uidField]: _removed, ...body } = exampleOf(resourceType)
      assertInvalid(resourceType, body, ` required:${uidField}`)
    })

    it(`common fields: ${uidField} must be a UUID version 4 (version and variant bits checked)`, () => {
      const uid = exampleOf(resourceType)[uidField] as string
      const wrongVersion = `${uid.slice(0, 14)}1${uid.slice(15)}`
      const wrongVariant = `${uid.slice(0, 19)}c${uid.slice(20)}`
      assertInvalid(resourceType, { ...exampleOf(resourceType), [uidField]: wrongVersion }, `/${uidField} format`)
      assertInvalid(resourceType, { ...exampleOf(resourceType), [uidField]: wrongVariant }, `/${uidField} format`)
    })

    it('closed object: an unknown property fails', () => {
      assertInvalid(resourceType, { ...exampleOf(resourceType), nickname: 'x' }, ' additionalProperties')
    })

    it('voidedReason is required when isVoided is true, and accepted with it', () => {
      assertInvalid(resourceType, { ...exampleOf(resourceType), isVoided: true }, ' required:voidedReason')
      assertValid(resourceType, { ...exampleOf(resourceType), isVoided: true, voidedReason: 'remove_duplicate_record' })
      assertValid(resourceType, { ...exampleOf(resourceType), isVoided: false })
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), isVoided: true, voidedReason: 'duplicate' },
        '/voidedReason enum',
      )
    })

    it('changeTrackingIdentifier is an opaque string of 1 to 255 characters', () => {
      assertValid(resourceType, { ...exampleOf(resourceType), changeTrackingIdentifier: '2026-10-05T09:00:00Z/v7 #a' })
      assertValid(resourceType, { ...exampleOf(resourceType), changeTrackingIdentifier: 'x'.repeat(255) })
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), changeTrackingIdentifier: '' },
        '/changeTrackingIdentifier minLength',
      )
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), changeTrackingIdentifier: 'x'.repeat(256) },
        '/changeTrackingIdentifier maxLength',
      )
    })
  })
}

for (const resourceType of ['ProgramEnrolment', 'SubjectEnrolment'] as const) {
  describe(`${resourceType} child objects`, () => {
    it('lifecycle is required and must hold at least one state', () => {
      const { lifecycle: _removed, ...withoutLifecycle } = exampleOf(resourceType)
      assertInvalid(resourceType, withoutLifecycle, ' required:lifecycle')
      assertInvalid(resourceType, { ...exampleOf(resourceType), lifecycle: [] }, '/lifecycle minItems')
    })

    it('a lifecycle state needs studentStatus and studentActivityDate; studentStatusReason is a known reason', () => {
      const history = [
        { studentStatus: 'Registered', studentActivityDate: '2026-09-21' },
        { studentStatus: 'Cancelled', studentActivityDate: '2026-10-20', studentStatusReason: 'Formal_withdrawal' },
      ]
      assertValid(resourceType, { ...exampleOf(resourceType), lifecycle: history })
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), lifecycle: [{ studentStatus: 'Commenced' }] },
        '/lifecycle/0 required:studentActivityDate',
      )
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), lifecycle: [{ studentStatus: 'Started', studentActivityDate: '2026-10-05' }] },
        '/lifecycle/0/studentStatus enum',
      )
      assertInvalid(
        resourceType,
        {
          ...exampleOf(resourceType),
          lifecycle: [
            { studentStatus: 'Cancelled', studentActivityDate: '2026-10-05', studentStatusReason: 'Dropped_out' },
          ],
        },
        '/lifecycle/0/studentStatusReason enum',
      )
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '2026-02-30' }] },
        '/lifecycle/0/studentActivityDate format',
      )
    })

    it('thirdPartyServiceProviders: participantInvolvementType is required in every provider', () => {
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), thirdPartyServiceProviders: [{ organisationName: 'Harbour Training Partners' }] },
        '/thirdPartyServiceProviders/0 required:participantInvolvementType',
      )
      assertValid(resourceType, {
        ...exampleOf(resourceType),
        thirdPartyServiceProviders: [
          { participantInvolvementType: 'Training_delivery', organisationName: 'Harbour Training Partners' },
        ],
      })
      assertInvalid(
        resourceType,
        { ...exampleOf(resourceType), thirdPartyServiceProviders: [] },
        '/thirdPartyServiceProviders minItems',
      )
    })
  })
}

describe('field rules', () => {
  it('SubjectEnrolment: locations must hold at least one item, each referencing a delivery location by UID', () => {
    assertInvalid('SubjectEnrolment', { ...exampleOf('SubjectEnrolment'), locations: [] }, '/locations minItems')
    assertInvalid(
      'SubjectEnrolment',
      { ...exampleOf('SubjectEnrolment'), locations: [{ hoursAtLocation: 5 }] },
      '/locations/0 required:deliveryLocationUID',
    )
  })

  it('Student: a USI is 10 characters from the USI alphabet, or INTOFF', () => {
    assertValid('Student', { ...exampleOf('Student'), uniqueStudentIdentifier: 'INTOFF' })
    assertInvalid(
      'Student',
      { ...exampleOf('Student'), uniqueStudentIdentifier: '7KQ3NHV8R0' },
      '/uniqueStudentIdentifier pattern',
    )
    assertInvalid(
      'Student',
      { ...exampleOf('Student'), uniqueStudentIdentifier: '7KQ3NHV8R' },
      '/uniqueStudentIdentifier pattern',
    )
  })

  it('Student: postcodes are 4 digits or OSPC; No_value is accepted where the list has it', () => {
    const student = exampleOf('Student')
    assertValid('Student', {
      ...student,
      permanentAddress: { ...student.permanentAddress, postcode: 'OSPC', state: 'Overseas', country: '1201' },
    })
    assertValid('Student', {
      ...student,
      indigenousStatus: 'No_value',
      permanentAddress: { ...student.permanentAddress, state: 'No_value' },
    })
    assertInvalid(
      'Student',
      { ...student, permanentAddress: { ...student.permanentAddress, postcode: '215' } },
      '/permanentAddress/postcode pattern',
    )
    assertInvalid('Student', { ...student, surveyAvailability: 'No_value' }, '/surveyAvailability enum')
  })

  it('Student: emailAddressPrimary must be an email address', () => {
    assertInvalid(
      'Student',
      { ...exampleOf('Student'), emailAddressPrimary: 'mai.nguyen' },
      '/emailAddressPrimary format',
    )
  })

  it('DeliveryLocation: the state of a location must be known (no No_value)', () => {
    const location = exampleOf('DeliveryLocation')
    assertInvalid(
      'DeliveryLocation',
      { ...location, address: { ...location.address, state: 'No_value' } },
      '/address/state enum',
    )
  })

  it('Program and Subject: fields of education are 4-digit and 6-digit ASCED codes, occupation a 6-digit ANZSCO code', () => {
    assertInvalid(
      'Program',
      { ...exampleOf('Program'), programFieldOfEducation: '080301' },
      '/programFieldOfEducation pattern',
    )
    assertInvalid('Program', { ...exampleOf('Program'), occupationCode: '5111' }, '/occupationCode pattern')
    assertInvalid(
      'Subject',
      { ...exampleOf('Subject'), subjectFieldOfEducation: '0803' },
      '/subjectFieldOfEducation pattern',
    )
  })

  it('numbers are not coerced from strings: nominalHours "50" fails', () => {
    assertInvalid('Subject', { ...exampleOf('Subject'), nominalHours: '50' }, '/nominalHours type')
  })
})
