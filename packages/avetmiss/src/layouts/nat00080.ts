import { alphanumeric, date } from '../layout.ts'

/**
 * NAT00080, Client: one record per student. Codes that allow "not stated" take @ characters, so
 * they are alphanumeric even where the stated values are digits. The two statistical area fields at
 * the end are collected by state training authorities; a record without them ends at 327.
 */
export const NAT00080 = {
  fileId: 'NAT00080',
  title: 'Client',
  recordLength: 347,
  fields: [
    alphanumeric('clientIdentifier', 'Client identifier', 1, 10, 'required'),
    alphanumeric('nameForEncryption', 'Name for encryption', 11, 60, 'required'),
    alphanumeric(
      'highestSchoolLevelCompletedIdentifier',
      'Highest school level completed identifier',
      71,
      2,
      'required',
    ),
    alphanumeric('gender', 'Gender', 73, 1, 'required'),
    date('dateOfBirth', 'Date of birth', 74, 'required'),
    alphanumeric('postcode', 'Postcode', 82, 4, 'required'),
    alphanumeric('indigenousStatusIdentifier', 'Indigenous status identifier', 86, 1, 'required'),
    alphanumeric('languageIdentifier', 'Language identifier', 87, 4, 'required'),
    alphanumeric('labourForceStatusIdentifier', 'Labour force status identifier', 91, 2, 'required'),
    alphanumeric('countryIdentifier', 'Country identifier', 93, 4, 'required'),
    alphanumeric('disabilityFlag', 'Disability flag', 97, 1, 'required'),
    alphanumeric('priorEducationalAchievementFlag', 'Prior educational achievement flag', 98, 1, 'required'),
    alphanumeric('atSchoolFlag', 'At school flag', 99, 1, 'required'),
    alphanumeric(
      'addressSuburbLocalityOrTown',
      'Address location - suburb, locality or town',
      100,
      50,
      'blank allowed',
    ),
    alphanumeric('uniqueStudentIdentifier', 'Unique student identifier', 150, 10, 'blank allowed'),
    alphanumeric('stateIdentifier', 'State identifier', 160, 2, 'blank allowed'),
    alphanumeric('addressBuildingPropertyName', 'Address building/property name', 162, 50, 'blank allowed'),
    alphanumeric('addressFlatUnitDetails', 'Address flat/unit details', 212, 30, 'blank allowed'),
    alphanumeric('addressStreetNumber', 'Address street number', 242, 15, 'blank allowed'),
    alphanumeric('addressStreetName', 'Address street name', 257, 70, 'blank allowed'),
    alphanumeric('surveyContactStatus', 'Survey contact status', 327, 1, 'blank allowed'),
    alphanumeric('statisticalAreaLevel1Identifier', 'Statistical area level 1 identifier', 328, 11, 'blank allowed'),
    alphanumeric('statisticalAreaLevel2Identifier', 'Statistical area level 2 identifier', 339, 9, 'blank allowed'),
  ],
} as const
