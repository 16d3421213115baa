// Students to NAT00080 (client), NAT00085 (contact details), NAT00090 (disabilities) and NAT00100
// (prior educational achievements). A NAT00080 field AVETMISS requires and the student leaves out is
// written as not stated (@-filled), which reads back as the field left out, or as No_value where the
// dataset has a word for "not stated".
import { NOT_STATED_DATE } from '../../dates.ts'
import type { NatFieldName, NatValues } from '../../layouts/index.ts'
import { defined } from '../objects.ts'
import type { StudentRecord } from '../resource-records.ts'
import { type ExportContext, notStated, yesNo } from './context.ts'

export interface StudentLines {
  NAT00080: NatValues<'NAT00080'>[]
  NAT00085: NatValues<'NAT00085'>[]
  NAT00090: NatValues<'NAT00090'>[]
  NAT00100: NatValues<'NAT00100'>[]
}

const NAME_FOR_ENCRYPTION_LENGTH = 60
const NOT_STATED_NAME = '@'

/**
 * The lines of every student. A student without a clientIdentifier cannot be written (it is the key
 * of every NAT line about the student) and is reported.
 */
export function studentsToNat(context: ExportContext): StudentLines {
  const lines: StudentLines = { NAT00080: [], NAT00085: [], NAT00090: [], NAT00100: [] }
  for (const [uid, student] of context.byUid.Student) {
    const client = student.clientIdentifier
    if (client === undefined) {
      context.problem(
        'Student',
        uid,
        'clientIdentifier',
        'The student has no clientIdentifier, the key of every NAT line about a student; it is not written',
      )
      continue
    }
    const code = (field: string, dataset: string, word: string | undefined) =>
      context.code('Student', uid, field, dataset, word)
    lines.NAT00080.push(clientLine(student, client, code))
    lines.NAT00085.push(contactLine(student, client, code))
    for (const [index, disability] of (student.disabilities ?? []).entries()) {
      const type = code(`disabilities[${index}]`, 'disability-type', disability)
      if (type !== undefined) lines.NAT00090.push({ clientIdentifier: client, disabilityTypeIdentifier: type })
    }
    for (const [index, item] of (student.priorEducationalAchievements ?? []).entries()) {
      const path = `priorEducationalAchievements[${index}]`
      const achievement = code(
        `${path}.priorEducationalAchievement`,
        'prior-educational-achievement',
        item.priorEducationalAchievement,
      )
      const recognition = code(`${path}.recognition`, 'prior-educational-achievement-recognition', item.recognition)
      if (achievement === undefined || recognition === undefined) continue
      lines.NAT00100.push({
        clientIdentifier: client,
        priorEducationalAchievementIdentifier: achievement,
        priorEducationalAchievementRecognitionIdentifier: recognition,
      })
    }
  }
  return lines
}

type Code = (field: string, dataset: string, word: string | undefined) => string | undefined

function clientLine(student: StudentRecord, client: string, code: Code): NatValues<'NAT00080'> {
  const home = student.permanentAddress
  const stated = (field: NatFieldName<'NAT00080'>, value: string | undefined) => value ?? notStated('NAT00080', field)
  return defined({
    clientIdentifier: client,
    nameForEncryption: nameForEncryptionOf(student),
    highestSchoolLevelCompletedIdentifier: stated(
      'highestSchoolLevelCompletedIdentifier',
      code('highestSchoolLevelCompleted', 'highest-school-level', student.highestSchoolLevelCompleted),
    ),
    gender: stated('gender', code('gender', 'gender', student.gender)),
    dateOfBirth: student.dateOfBirth ?? NOT_STATED_DATE,
    postcode: stated('postcode', home?.postcode),
    indigenousStatusIdentifier: stated(
      'indigenousStatusIdentifier',
      code('indigenousStatus', 'indigenous-status', student.indigenousStatus),
    ),
    languageIdentifier: stated(
      'languageIdentifier',
      code('languageSpokenAtHome', 'language', student.languageSpokenAtHome),
    ),
    labourForceStatusIdentifier: stated(
      'labourForceStatusIdentifier',
      code('labourForceStatus', 'labour-force-status', student.labourForceStatus),
    ),
    countryIdentifier: stated('countryIdentifier', code('countryOfBirth', 'country', student.countryOfBirth)),
    disabilityFlag: stated('disabilityFlag', yesNo(student.hasDisability)),
    priorEducationalAchievementFlag: stated(
      'priorEducationalAchievementFlag',
      yesNo(student.hasPriorEducationalAchievement),
    ),
    atSchoolFlag: stated('atSchoolFlag', yesNo(student.isAtSchool)),
    addressSuburbLocalityOrTown: home?.suburbLocalityOrTown,
    uniqueStudentIdentifier: student.uniqueStudentIdentifier,
    stateIdentifier: code('permanentAddress.state', 'state', home?.state),
    addressBuildingPropertyName: home?.buildingPropertyName,
    addressFlatUnitDetails: home?.flatUnitDetails,
    addressStreetNumber: home?.streetNumber,
    addressStreetName: home?.streetName,
    surveyContactStatus: code('surveyAvailability', 'survey-availability', student.surveyAvailability),
  })
}

/**
 * AVETMISS builds the name for encryption as "family name, first given name second given name"; the
 * API has no second given name, so it is "FAMILY, FIRST", or the family name alone, cut to the field.
 */
export function nameForEncryptionOf(student: Pick<StudentRecord, 'familyName' | 'firstGivenName'>): string {
  const name = student.firstGivenName ? `${student.familyName}, ${student.firstGivenName}` : student.familyName
  return name.slice(0, NAME_FOR_ENCRYPTION_LENGTH)
}

/** The first given name is required in NAT00085: a person with one name has it written as not stated (@). */
function contactLine(student: StudentRecord, client: string, code: Code): NatValues<'NAT00085'> {
  const postal = student.postalAddress
  return defined({
    clientIdentifier: client,
    clientTitle: student.clientTitle,
    clientFirstGivenName: student.firstGivenName ?? NOT_STATED_NAME,
    clientFamilyName: student.familyName,
    addressBuildingPropertyName: postal?.buildingPropertyName,
    addressFlatUnitDetails: postal?.flatUnitDetails,
    addressStreetNumber: postal?.streetNumber,
    addressStreetName: postal?.streetName,
    addressPostalDeliveryBox: postal?.postalDeliveryBox,
    addressPostalSuburbLocalityOrTown: postal?.suburbLocalityOrTown,
    postcode: postal?.postcode,
    stateIdentifier: code('postalAddress.state', 'state', postal?.state),
    telephoneNumberHome: student.telephoneNumberHome,
    telephoneNumberWork: student.telephoneNumberWork,
    telephoneNumberMobile: student.telephoneNumberMobile,
    emailAddress: student.emailAddressPrimary,
    emailAddressAlternative: student.emailAddressAlternative,
  })
}
