// Hand-built NAT lines, one for every file type, written field by field with the published widths
// typed out here (not taken from the layouts), so that a layout with a wrong position, length or type
// disagrees with them. Each piece says what the line holds, what the reader must return and what the
// writer is given to produce it (numbers unpadded, dates as YYYY-MM-DD).
import type { FieldType, NatFileId } from '../../src/index.ts'

export interface Piece {
  field: string
  type: FieldType
  /** The field's text in the line, exactly its published width. */
  text: string
  /** What the reader returns for it (undefined: blank). */
  read: string | undefined
  /** What the writer is given to produce `text`. */
  write: string | undefined
}

/** Alphanumeric: left-aligned, filled with spaces to `width`. */
const a = (field: string, width: number, value: string): Piece => ({
  field,
  type: 'alphanumeric',
  text: value.padEnd(width, ' '),
  read: value,
  write: value,
})
/** Numeric: right-aligned, filled with zeros to `width`; the writer is given the bare number. */
const n = (field: string, width: number, value: string): Piece => ({
  field,
  type: 'numeric',
  text: value.padStart(width, '0'),
  read: value.padStart(width, '0'),
  write: value,
})
/** Date: DDMMYYYY in the line, YYYY-MM-DD for the caller. */
const d = (field: string, ddmmyyyy: string): Piece => ({
  field,
  type: 'date',
  text: ddmmyyyy,
  read: `${ddmmyyyy.slice(4)}-${ddmmyyyy.slice(2, 4)}-${ddmmyyyy.slice(0, 2)}`,
  write: `${ddmmyyyy.slice(4)}-${ddmmyyyy.slice(2, 4)}-${ddmmyyyy.slice(0, 2)}`,
})
/** A blank field of any type: spaces. */
const blank = (field: string, type: FieldType, width: number): Piece => ({
  field,
  type,
  text: ' '.repeat(width),
  read: undefined,
  write: undefined,
})

export const GOLDEN: Record<NatFileId, Piece[]> = {
  NAT00010: [
    a('trainingOrganisationIdentifier', 10, '90001'),
    a('trainingOrganisationName', 100, 'Acme Training Institute Pty Ltd'),
    n('trainingOrganisationTypeIdentifier', 2, '91'),
    a('addressFirstLine', 50, 'Level 3, 100 Example Street'),
    a('addressSecondLine', 50, 'Rear entrance'),
    a('addressSuburbLocalityOrTown', 50, 'Adelaide'),
    a('postcode', 4, '5000'),
    n('stateIdentifier', 2, '4'),
    a('contactName', 60, 'Alex Citizen'),
    a('telephoneNumber', 20, '08 8230 0000'),
    a('facsimileNumber', 20, '08 8230 0001'),
    a('emailAddress', 80, 'avetmiss@acme.example.edu.au'),
  ],
  NAT00020: [
    a('trainingOrganisationIdentifier', 10, '90001'),
    a('deliveryLocationIdentifier', 10, 'CBD01'),
    a('deliveryLocationName', 100, 'Acme City Campus'),
    a('postcode', 4, '5000'),
    n('stateIdentifier', 2, '04'),
    a('addressSuburbLocalityOrTown', 50, 'Adelaide'),
    a('countryIdentifier', 4, '1101'),
  ],
  NAT00030: [
    a('programIdentifier', 10, 'BSB40120'),
    a('programName', 100, 'Certificate IV in Business'),
    n('nominalHours', 4, '690'),
  ],
  NAT00030A: [
    a('programIdentifier', 10, 'LSS001'),
    a('programName', 100, 'Local skill set in workplace first aid'),
    n('nominalHours', 4, '40'),
    n('programRecognitionIdentifier', 2, '16'),
    n('programLevelOfEducationIdentifier', 3, '912'),
    n('programFieldOfEducationIdentifier', 4, '0613'),
    a('anzscoIdentifier', 6, '411411'),
    a('vetFlag', 1, 'Y'),
  ],
  NAT00060: [
    a('subjectIdentifier', 12, 'BSBWHS411'),
    a('subjectName', 100, 'Implement and monitor WHS policies, procedures and programs'),
    a('subjectFieldOfEducationIdentifier', 6, '061301'),
    a('vetFlag', 1, 'Y'),
    n('nominalHours', 4, '60'),
  ],
  NAT00080: [
    a('clientIdentifier', 10, 'S000123'),
    a('nameForEncryption', 60, 'Citizen, Alex Jordan'),
    a('highestSchoolLevelCompletedIdentifier', 2, '12'),
    a('gender', 1, 'X'),
    d('dateOfBirth', '29022004'),
    a('postcode', 4, '5000'),
    a('indigenousStatusIdentifier', 1, '4'),
    a('languageIdentifier', 4, '1201'),
    a('labourForceStatusIdentifier', 2, '02'),
    a('countryIdentifier', 4, '1101'),
    a('disabilityFlag', 1, 'Y'),
    a('priorEducationalAchievementFlag', 1, 'Y'),
    a('atSchoolFlag', 1, 'N'),
    a('addressSuburbLocalityOrTown', 50, 'Adelaide'),
    a('uniqueStudentIdentifier', 10, '3AW88YH9U5'),
    a('stateIdentifier', 2, '04'),
    a('addressBuildingPropertyName', 50, 'Example House'),
    a('addressFlatUnitDetails', 30, 'Unit 4'),
    a('addressStreetNumber', 15, '100'),
    a('addressStreetName', 70, 'Example Street'),
    a('surveyContactStatus', 1, 'A'),
    a('statisticalAreaLevel1Identifier', 11, '40101100101'),
    a('statisticalAreaLevel2Identifier', 9, '401011001'),
  ],
  NAT00085: [
    a('clientIdentifier', 10, 'S000123'),
    a('clientTitle', 4, 'Mx'),
    a('clientFirstGivenName', 40, 'Alex'),
    a('clientFamilyName', 40, 'Citizen'),
    a('addressBuildingPropertyName', 50, 'Example House'),
    a('addressFlatUnitDetails', 30, 'Unit 4'),
    a('addressStreetNumber', 15, '100'),
    a('addressStreetName', 70, 'Example Street'),
    a('addressPostalDeliveryBox', 22, 'PO Box 123'),
    a('addressPostalSuburbLocalityOrTown', 50, 'Adelaide'),
    a('postcode', 4, '5001'),
    a('stateIdentifier', 2, '04'),
    a('telephoneNumberHome', 20, '08 8000 0000'),
    a('telephoneNumberWork', 20, '08 8000 0001'),
    a('telephoneNumberMobile', 20, '0400 000 000'),
    a('emailAddress', 80, 'alex@example.com'),
    a('emailAddressAlternative', 80, 'alex.citizen@example.org'),
  ],
  NAT00090: [a('clientIdentifier', 10, 'S000123'), a('disabilityTypeIdentifier', 2, '14')],
  NAT00100: [
    a('clientIdentifier', 10, 'S000123'),
    a('priorEducationalAchievementIdentifier', 3, '008'),
    a('priorEducationalAchievementRecognitionIdentifier', 1, 'E'),
  ],
  NAT00120: [
    a('trainingOrganisationIdentifier', 10, '90001'),
    a('deliveryLocationIdentifier', 10, 'CBD01'),
    a('clientIdentifier', 10, 'S000123'),
    a('subjectIdentifier', 12, 'BSBWHS411'),
    a('programIdentifier', 10, 'BSB40120'),
    d('activityStartDate', '03022026'),
    d('activityEndDate', '30062026'),
    a('deliveryModeIdentifier', 3, 'YNN'),
    n('outcomeIdentifierNational', 2, '20'),
    a('fundingSourceNational', 2, '11'),
    a('commencingProgramIdentifier', 1, '3'),
    a('trainingContractIdentifier', 10, 'TC12345'),
    a('clientIdentifierApprenticeships', 10, 'AP99'),
    a('studyReasonIdentifier', 2, '07'),
    a('vetInSchoolsFlag', 1, 'N'),
    a('specificFundingIdentifier', 10, 'SF001'),
    a('schoolTypeIdentifier', 2, '91'),
    a('outcomeIdentifierTrainingOrganisation', 3, 'CA'),
    a('fundingSourceStateTrainingAuthority', 3, 'A12'),
    n('clientTuitionFee', 5, '450'),
    a('feeExemptionConcessionTypeIdentifier', 2, 'C'),
    a('purchasingContractIdentifier', 12, 'PC2026-01'),
    a('purchasingContractScheduleIdentifier', 3, '001'),
    n('hoursAttended', 4, '58'),
    a('associatedCourseIdentifier', 10, 'BSB40120'),
    n('scheduledHours', 4, '60'),
    a('predominantDeliveryMode', 1, 'I'),
  ],
  NAT00130: [
    a('trainingOrganisationIdentifier', 10, '90001'),
    a('programIdentifier', 10, 'BSB40120'),
    a('clientIdentifier', 10, 'S000123'),
    d('dateProgramCompleted', '30062026'),
    a('issuedFlag', 1, 'Y'),
    d('parchmentIssueDate', '15072026'),
    a('parchmentNumber', 25, 'ACME-2026-000417'),
  ],
}

/** The line of pieces, no line end. */
export const lineOf = (pieces: readonly Piece[]) => pieces.map((piece) => piece.text).join('')

/** What the reader returns for pieces: blank fields absent. */
export const readValuesOf = (pieces: readonly Piece[]) =>
  Object.fromEntries(pieces.filter((piece) => piece.read !== undefined).map((piece) => [piece.field, piece.read]))

/** What the writer is given for pieces: blank fields absent. */
export const writeValuesOf = (pieces: readonly Piece[]) =>
  Object.fromEntries(pieces.filter((piece) => piece.write !== undefined).map((piece) => [piece.field, piece.write]))

/** The same pieces with some fields blanked, to build records with optional fields left out. */
export const withBlanks = (pieces: readonly Piece[], fields: readonly string[]) =>
  pieces.map((piece) => (fields.includes(piece.field) ? blank(piece.field, piece.type, piece.text.length) : piece))
