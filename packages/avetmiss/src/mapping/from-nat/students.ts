// Students from NAT00080 (client), with NAT00085 (contact details), NAT00090 (disabilities) and
// NAT00100 (prior educational achievements) joined by client identifier.
import type { NatFieldName } from '../../layouts/index.ts'
import type { NatRecord, NatRecordSet } from '../../records.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { AddressRecord, PriorEducationalAchievementRecord, StudentRecord } from '../resource-records.ts'
import { type ImportContext, missingBecauseUnread, notRead, report } from './context.ts'
import { isNotStated, NatFieldReader } from './field-reader.ts'
import { allByKey, firstByKey } from './grouping.ts'

const POSTCODE = /^(\d{4}|OSPC)$/

const clientOf = (record: NatRecord<'NAT00080' | 'NAT00085' | 'NAT00090' | 'NAT00100'>) =>
  record.values.clientIdentifier ?? ''

export function studentsFromNat(context: ImportContext, records: NatRecordSet): MappedRecordOf<'Student'>[] {
  const clients = firstByKey(context, records.NAT00080, clientOf, (client) => `Client ${client}`)
  const contacts = firstByKey(context, records.NAT00085, clientOf, (client) => `Contact details of client ${client}`)
  const disabilities = allByKey(records.NAT00090, clientOf)
  const achievements = allByKey(records.NAT00100, clientOf)

  // A row of a client-keyed table whose client is not in NAT00080 has no student to belong to.
  for (const table of [records.NAT00085, records.NAT00090, records.NAT00100]) {
    for (const row of table) {
      if (clients.has(clientOf(row)) || notRead(context, ['NAT00080'])) continue
      const unread = missingBecauseUnread(context, ['NAT00080'], 'clientIdentifier', `client ${clientOf(row)}`)
      if (unread) {
        report(
          context,
          row,
          'clientIdentifier',
          `${unread.message}; the ${row.fileId} line is not carried`,
          unread.action,
        )
        continue
      }
      report(
        context,
        row,
        'clientIdentifier',
        `Client ${clientOf(row)} is not in NAT00080; the ${row.fileId} line is not carried`,
        `In the SMS, include client ${clientOf(row)} in the NAT00080 export, or correct the client identifier on this ${row.fileId} line.`,
      )
    }
  }

  return [...clients.values()].map((client) => {
    const id = clientOf(client)
    return studentFrom(context, client, contacts.get(id), disabilities.get(id) ?? [], achievements.get(id) ?? [])
  })
}

function studentFrom(
  context: ImportContext,
  client: NatRecord<'NAT00080'>,
  contact: NatRecord<'NAT00085'> | undefined,
  disabilityRows: readonly NatRecord<'NAT00090'>[],
  achievementRows: readonly NatRecord<'NAT00100'>[],
): MappedRecordOf<'Student'> {
  const origin = new OriginBuilder(client)
  const c = new NatFieldReader(context, client, origin)
  const clientIdentifier = c.raw('clientIdentifier')!
  const uid = context.keys.student(clientIdentifier)
  c.from('studentUID', 'clientIdentifier')

  const student: StudentRecord = {
    studentUID: uid,
    clientIdentifier: c.text('clientIdentifier', 'clientIdentifier'),
    ...namesOf(context, c, contact, origin),
    dateOfBirth: c.date('dateOfBirth', 'dateOfBirth'),
    gender: c.code('gender', 'gender', 'gender'),
    permanentAddress: residentialAddressOf(c),
    postalAddress: contact ? postalAddressOf(new NatFieldReader(context, contact, origin)) : undefined,
    indigenousStatus: c.code('indigenousStatusIdentifier', 'indigenous-status', 'indigenousStatus'),
    hasDisability: c.flag('disabilityFlag', 'hasDisability'),
    disabilities: disabilitiesOf(context, disabilityRows, origin),
    hasPriorEducationalAchievement: c.flag('priorEducationalAchievementFlag', 'hasPriorEducationalAchievement'),
    priorEducationalAchievements: achievementsOf(context, achievementRows, origin),
    highestSchoolLevelCompleted: c.code(
      'highestSchoolLevelCompletedIdentifier',
      'highest-school-level',
      'highestSchoolLevelCompleted',
    ),
    isAtSchool: c.flag('atSchoolFlag', 'isAtSchool'),
    languageSpokenAtHome: c.code('languageIdentifier', 'language', 'languageSpokenAtHome'),
    countryOfBirth: c.code('countryIdentifier', 'country', 'countryOfBirth'),
    labourForceStatus: c.code('labourForceStatusIdentifier', 'labour-force-status', 'labourForceStatus'),
    uniqueStudentIdentifier: c.text('uniqueStudentIdentifier', 'uniqueStudentIdentifier'),
    surveyAvailability: c.code('surveyContactStatus', 'survey-availability', 'surveyAvailability'),
    ...(contact ? contactsOf(new NatFieldReader(context, contact, origin)) : {}),
  }
  return { resourceType: 'Student', uid, record: defined(student), origin: origin.build() }
}

/**
 * Title and names from NAT00085. Without a NAT00085 line (a fault: every client has one), or with a
 * family name not stated (@, which the API cannot take: familyName is required), the names are
 * taken from NAT00080's name for encryption, "FAMILY, FIRST SECOND", and the fault is reported.
 */
function namesOf(
  context: ImportContext,
  c: NatFieldReader<'NAT00080'>,
  contact: NatRecord<'NAT00085'> | undefined,
  origin: OriginBuilder,
): Pick<StudentRecord, 'clientTitle' | 'firstGivenName' | 'familyName'> {
  if (contact) {
    const k = new NatFieldReader(context, contact, origin)
    const familyName = k.text('clientFamilyName', 'familyName')
    if (familyName !== undefined) {
      return {
        clientTitle: k.text('clientTitle', 'clientTitle'),
        firstGivenName: k.text('clientFirstGivenName', 'firstGivenName'),
        familyName,
      }
    }
    k.problem('clientFamilyName', 'Client family name is not stated; the names are taken from Name for encryption')
  } else {
    c.problem(
      'clientIdentifier',
      `Client ${c.raw('clientIdentifier')} has no NAT00085 contact details; the names are taken from Name for encryption`,
    )
  }
  const [family = '', given = ''] = (c.raw('nameForEncryption') ?? '').split(',').map((part) => part.trim())
  c.from('familyName', 'nameForEncryption')
  const first = given.split(/\s+/)[0]
  if (first) c.from('firstGivenName', 'nameForEncryption')
  return { familyName: family, firstGivenName: first || undefined }
}

type AddressFile = 'NAT00080' | 'NAT00085'
type AddressField = NatFieldName<AddressFile>
type AddressPart = 'buildingPropertyName' | 'flatUnitDetails' | 'streetNumber' | 'streetName' | 'postalDeliveryBox'

/**
 * An address needs a suburb, locality or town and a postcode (4 digits or OSPC) in the API. A NAT
 * address without them, but with other parts stated, cannot be carried and is reported; one with
 * nothing stated (postcode @@@@, the rest blank) is simply left out.
 */
function addressOf(
  r: NatFieldReader<AddressFile>,
  path: string,
  suburbField: AddressField,
  parts: readonly (readonly [AddressField, AddressPart])[],
): AddressRecord | undefined {
  const stated = (field: AddressField) => {
    const value = r.raw(field)
    return value !== undefined && !isNotStated(value)
  }
  const postcode = r.raw('postcode')
  if (stated(suburbField) && postcode !== undefined && POSTCODE.test(postcode)) {
    const address: AddressRecord = {
      suburbLocalityOrTown: r.text(suburbField, `${path}.suburbLocalityOrTown`)!,
      postcode: r.text('postcode', `${path}.postcode`)!,
    }
    const state = r.code('stateIdentifier', 'state', `${path}.state`)
    if (state !== undefined) address.state = state
    for (const [field, name] of parts) {
      const value = r.text(field, `${path}.${name}`)
      if (value !== undefined) address[name] = value
    }
    return address
  }
  if (postcode !== undefined && stated('postcode') && !POSTCODE.test(postcode)) {
    r.problem('postcode', `Postcode "${postcode}" is not 4 digits or OSPC; the ${path} is not carried`)
  } else {
    const given: AddressField[] = [suburbField, 'postcode', 'stateIdentifier', ...parts.map(([field]) => field)]
    if (!given.some(stated)) return undefined
    r.problem(
      stated(suburbField) ? 'postcode' : suburbField,
      `The ${path} needs both a suburb, locality or town and a postcode; it is not carried`,
    )
  }
  return undefined
}

const STREET_PARTS = [
  ['addressBuildingPropertyName', 'buildingPropertyName'],
  ['addressFlatUnitDetails', 'flatUnitDetails'],
  ['addressStreetNumber', 'streetNumber'],
  ['addressStreetName', 'streetName'],
] as const

/** NAT00080's address is the usual residential address: the API's permanentAddress. */
function residentialAddressOf(c: NatFieldReader<'NAT00080'>): AddressRecord | undefined {
  return addressOf(c, 'permanentAddress', 'addressSuburbLocalityOrTown', STREET_PARTS)
}

/** NAT00085's address is where the student receives mail: the API's postalAddress. */
function postalAddressOf(k: NatFieldReader<'NAT00085'>): AddressRecord | undefined {
  return addressOf(k, 'postalAddress', 'addressPostalSuburbLocalityOrTown', [
    ...STREET_PARTS,
    ['addressPostalDeliveryBox', 'postalDeliveryBox'],
  ])
}

function contactsOf(k: NatFieldReader<'NAT00085'>): Partial<StudentRecord> {
  return {
    emailAddressPrimary: k.text('emailAddress', 'emailAddressPrimary'),
    emailAddressAlternative: k.text('emailAddressAlternative', 'emailAddressAlternative'),
    telephoneNumberHome: k.text('telephoneNumberHome', 'telephoneNumberHome'),
    telephoneNumberWork: k.text('telephoneNumberWork', 'telephoneNumberWork'),
    telephoneNumberMobile: k.text('telephoneNumberMobile', 'telephoneNumberMobile'),
  }
}

/** Each NAT00090 line is one disability type; the API lists each type once. */
function disabilitiesOf(
  context: ImportContext,
  rows: readonly NatRecord<'NAT00090'>[],
  origin: OriginBuilder,
): string[] | undefined {
  const list: string[] = []
  for (const row of rows) {
    const r = new NatFieldReader(context, row, origin)
    const word = r.code('disabilityTypeIdentifier', 'disability-type', `disabilities[${list.length}]`)
    if (word === undefined) continue
    if (list.includes(word)) r.problem('disabilityTypeIdentifier', 'The disability type is listed twice for the client')
    else list.push(word)
  }
  return list.length > 0 ? list : undefined
}

/**
 * Each NAT00100 line is one prior educational achievement with its recognition. The API requires the
 * recognition, which release 8.0 added at column 14; a line without it (an older 13-long record) is
 * reported and not carried.
 */
function achievementsOf(
  context: ImportContext,
  rows: readonly NatRecord<'NAT00100'>[],
  origin: OriginBuilder,
): PriorEducationalAchievementRecord[] | undefined {
  const list: PriorEducationalAchievementRecord[] = []
  for (const row of rows) {
    const r = new NatFieldReader(context, row, origin)
    const path = `priorEducationalAchievements[${list.length}]`
    if (r.raw('priorEducationalAchievementRecognitionIdentifier') === undefined) {
      r.problem(
        'priorEducationalAchievementRecognitionIdentifier',
        'The recognition identifier (A, E or I) is needed to carry the achievement; the line is not carried',
      )
      continue
    }
    const achievement = r.code(
      'priorEducationalAchievementIdentifier',
      'prior-educational-achievement',
      `${path}.priorEducationalAchievement`,
    )
    const recognition = r.code(
      'priorEducationalAchievementRecognitionIdentifier',
      'prior-educational-achievement-recognition',
      `${path}.recognition`,
    )
    if (achievement === undefined || recognition === undefined) continue
    if (list.some((item) => item.priorEducationalAchievement === achievement && item.recognition === recognition)) {
      r.problem('priorEducationalAchievementIdentifier', 'The achievement is listed twice for the client')
    } else {
      list.push({ priorEducationalAchievement: achievement, recognition })
    }
  }
  return list.length > 0 ? list : undefined
}
