// The JSON bodies the service's upload takes for its eight resource types, as far as the NAT mapping
// writes or reads them. The service's schemas (src/modules/resources) are the contract; this package
// does not depend on the service, so the shapes are restated here, and a test checks every mapped
// record against the service's own upload schemas.
//
// Coded fields are typed `string`: their words come from the reference data through a CodeTranslator,
// never from a list kept here. The lifecycle words are the specification's own (no AVETMISS code).

/** The eight resource types, in the order the mapping emits them: what a record refers to comes first. */
export const RESOURCE_TYPES = [
  'DeliveryLocation',
  'Program',
  'Subject',
  'Student',
  'ProgramOffering',
  'SubjectOffering',
  'ProgramEnrolment',
  'SubjectEnrolment',
] as const
export type ResourceType = (typeof RESOURCE_TYPES)[number]

/** Fields every resource may carry besides its UID; NAT has none of them, so the mapping never sets them. */
interface CommonFields {
  changeTrackingIdentifier?: string
  isVoided?: boolean
  voidedReason?: string
}

export interface AddressRecord {
  buildingPropertyName?: string
  flatUnitDetails?: string
  streetNumber?: string
  streetName?: string
  postalDeliveryBox?: string
  suburbLocalityOrTown: string
  postcode: string
  state?: string
  country?: string
}

export interface PriorEducationalAchievementRecord {
  priorEducationalAchievement: string
  recognition: string
}

export interface StudentRecord extends CommonFields {
  studentUID: string
  clientIdentifier?: string
  clientTitle?: string
  firstGivenName?: string
  familyName: string
  dateOfBirth?: string
  gender?: string
  permanentAddress?: AddressRecord
  termAddress?: AddressRecord
  postalAddress?: AddressRecord
  indigenousStatus?: string
  hasDisability?: boolean
  disabilities?: string[]
  hasPriorEducationalAchievement?: boolean
  priorEducationalAchievements?: PriorEducationalAchievementRecord[]
  highestSchoolLevelCompleted?: string
  highestSchoolLevelCompletedYear?: number
  isAtSchool?: boolean
  languageSpokenAtHome?: string
  countryOfBirth?: string
  labourForceStatus?: string
  uniqueStudentIdentifier?: string
  surveyAvailability?: string
  emailAddressPrimary?: string
  emailAddressAlternative?: string
  telephoneNumberHome?: string
  telephoneNumberWork?: string
  telephoneNumberMobile?: string
}

export interface DeliveryLocationRecord extends CommonFields {
  deliveryLocationUID: string
  deliveryLocationIdentifier: string
  deliveryLocationName: string
  address: AddressRecord & { state: string }
}

export interface ProgramRecord extends CommonFields {
  programUID: string
  programIdentifier: string
  programName: string
  nominalHours: number
  programRecognition?: string
  programLevelOfEducation?: string
  programFieldOfEducation?: string
  occupationCode?: string
  vocationalTrainingIndicator: boolean
}

export interface SubjectRecord extends CommonFields {
  subjectUID: string
  subjectIdentifier: string
  subjectName: string
  subjectType?: string
  subjectFieldOfEducation?: string
  nominalHours: number
  vocationalTrainingIndicator: boolean
}

export interface ProgramOfferingRecord extends CommonFields {
  programOfferingUID: string
  programUID: string
  programOfferingIdentifier?: string
  programOfferingName?: string
  startDate?: string
  endDate?: string
  deliveryLocationUID?: string
}

export interface SubjectOfferingRecord extends CommonFields {
  subjectOfferingUID: string
  subjectUID: string
  programOfferingUID?: string
  subjectOfferingIdentifier?: string
  subjectOfferingName?: string
  startDate?: string
  endDate?: string
  deliveryLocationUID?: string
}

export type StudentStatus = 'Registered' | 'Deferred' | 'Cancelled' | 'Commenced'

export interface LifecycleStateRecord {
  studentStatus: StudentStatus
  studentActivityDate: string
  studentStatusReason?: string
}

export interface ThirdPartyServiceProviderRecord {
  participantInvolvementType: string
  trainingOrganisationIdentifier?: string
  organisationName?: string
  australianBusinessNumber?: string
}

export interface ProgramCompletionRecord {
  dateProgramCompleted: string
  isParchmentIssued: boolean
  parchmentIssueDate?: string
  parchmentNumber?: string
}

export interface ProgramEnrolmentRecord extends CommonFields {
  programEnrolmentUID: string
  studentUID: string
  programOfferingUID: string
  commencementDate: string
  expectedCompletionDate?: string
  commencingProgram: string
  studyReason?: string
  fundingSourceNational: string
  trainingContractIdentifier?: string
  apprenticeshipClientIdentifier?: string
  programCompletion?: ProgramCompletionRecord
  lifecycle: LifecycleStateRecord[]
  thirdPartyServiceProviders?: ThirdPartyServiceProviderRecord[]
}

export interface DeliveryModeRecord {
  internal: boolean
  external: boolean
  workplace: boolean
}

export interface SubjectEnrolmentLocationRecord {
  deliveryLocationUID: string
  hoursAtLocation?: number
}

export interface OutcomeRecord {
  outcomeIdentifierNational: string
  outcomeIdentifierTrainingOrganisation?: string
}

export interface SubjectEnrolmentRecord extends CommonFields {
  subjectEnrolmentUID: string
  studentUID: string
  subjectOfferingUID: string
  programEnrolmentUID?: string
  activityStartDate: string
  activityEndDate: string
  deliveryMode: DeliveryModeRecord
  predominantDeliveryMode: string
  locations: SubjectEnrolmentLocationRecord[]
  scheduledHours?: number
  hoursAttended?: number
  fundingSourceNational: string
  commencingProgram: string
  studyReason?: string
  isVetInSchools: boolean
  schoolType?: string
  specificFundingIdentifier?: string
  outcome?: OutcomeRecord
  lifecycle: LifecycleStateRecord[]
  thirdPartyServiceProviders?: ThirdPartyServiceProviderRecord[]
}

/** The body of each resource type. */
export interface ResourceRecords {
  Student: StudentRecord
  DeliveryLocation: DeliveryLocationRecord
  Program: ProgramRecord
  ProgramOffering: ProgramOfferingRecord
  ProgramEnrolment: ProgramEnrolmentRecord
  Subject: SubjectRecord
  SubjectOffering: SubjectOfferingRecord
  SubjectEnrolment: SubjectEnrolmentRecord
}

/** A resource as the API holds it: its type and its body (the UID is in the body, under `uidFieldOf`). */
export type ResourceEntry = { [T in ResourceType]: { resourceType: T; record: ResourceRecords[T] } }[ResourceType]

/** The field of a body that holds its UID: `deliveryLocationUID` for DeliveryLocation. */
export function uidFieldOf<T extends ResourceType>(resourceType: T): `${Uncapitalize<T>}UID` {
  return `${resourceType.charAt(0).toLowerCase()}${resourceType.slice(1)}UID` as `${Uncapitalize<T>}UID`
}

/** The UID of a body. */
export function uidOf(entry: ResourceEntry): string {
  return (entry.record as unknown as Record<string, string>)[uidFieldOf(entry.resourceType)]!
}
