// The enumerations of the eight resources, as words in the specification's style (`Available`,
// `Deferral_Pre`, `remove_duplicate_record`), never as the AVETMISS numeric codes. Each list names its
// source; lists that descend from an AVETMISS 8.0 code list carry a word -> code map (`...Codes`) so the
// reference-data datasets can back them and file-based (NAT) output can be produced from them.
// `No_value` is the spec's heir of the AVETMISS @-filled "not stated" value and means the same as null
// (spec: Resources and their fields, Reference lists); it is included only where AVETMISS has "not
// stated", and maps to the @-filled code. A `satisfies` on every map keeps list and map in step.

// ---------------------------------------------------------------------------------------------------
// Lists from the specification (no AVETMISS code)

/** Spec: common fields, voidedReason. */
export const voidedReasons = ['remove_duplicate_record', 'remove_orphaned_record'] as const

/** Spec: Other field rules, studentStatus; States and transitions, Enrolment lifecycle. */
export const studentStatuses = ['Registered', 'Deferred', 'Cancelled', 'Commenced'] as const

/** Spec: studentStatusReason, "valid deferral reasons include Deferral_Pre and Deferral_Post". */
export const deferralReasons = ['Deferral_Pre', 'Deferral_Post'] as const
/** Spec: studentStatusReason, "valid cancellation reasons include Formal_withdrawal and Informal_withdrawal". */
export const cancellationReasons = ['Formal_withdrawal', 'Informal_withdrawal'] as const
/**
 * Spec: studentStatusReason. The spec says the reasons "include" these four and names no others, so no
 * further word is invented here; the reference-data issue can extend the list from the published dataset.
 */
export const studentStatusReasons = [...deferralReasons, ...cancellationReasons] as const

/**
 * thirdPartyServiceProviders.participantInvolvementType. The spec names the field (required inside the
 * child object) but not its values. These words follow what a third party may do for an RTO under the
 * Standards for RTOs (third-party arrangements: delivering training, assessing, or recruiting learners on
 * the RTO's behalf). Provisional until the reference-data issue publishes the authoritative dataset.
 */
export const participantInvolvementTypes = [
  'Training_delivery',
  'Assessment',
  'Training_delivery_and_assessment',
  'Student_recruitment',
] as const

// ---------------------------------------------------------------------------------------------------
// Student (AVETMISS 8.0 NAT00080, NAT00085, NAT00090, NAT00100)

/** Spec: surveyAvailability (value Available shown); AVETMISS 8.0 survey contact status, its ancestor. */
export const surveyAvailabilities = [
  'Available',
  'Correctional_facility',
  'Deceased',
  'Excluded',
  'Invalid_address_or_itinerant',
  'Minor_under_15',
  'Overseas',
] as const
export const surveyAvailabilityCodes = {
  Available: 'A',
  Correctional_facility: 'C',
  Deceased: 'D',
  Excluded: 'E',
  Invalid_address_or_itinerant: 'I',
  Minor_under_15: 'M',
  Overseas: 'O',
} as const satisfies Record<(typeof surveyAvailabilities)[number], string>

/** AVETMISS 8.0 sex (M, F, X other, @ not stated); the new standard adds values later through reference data. */
export const genders = ['Male', 'Female', 'Other', 'No_value'] as const
export const genderCodes = {
  Male: 'M',
  Female: 'F',
  Other: 'X',
  No_value: '@',
} as const satisfies Record<(typeof genders)[number], string>

/** AVETMISS 8.0 Indigenous status identifier. */
export const indigenousStatuses = [
  'Aboriginal',
  'Torres_Strait_Islander',
  'Aboriginal_and_Torres_Strait_Islander',
  'Neither_Aboriginal_nor_Torres_Strait_Islander',
  'No_value',
] as const
export const indigenousStatusCodes = {
  Aboriginal: '1',
  Torres_Strait_Islander: '2',
  Aboriginal_and_Torres_Strait_Islander: '3',
  Neither_Aboriginal_nor_Torres_Strait_Islander: '4',
  No_value: '@',
} as const satisfies Record<(typeof indigenousStatuses)[number], string>

/** AVETMISS 8.0 highest school level completed identifier. */
export const highestSchoolLevels = [
  'Did_not_go_to_school',
  'Year_8_or_below',
  'Year_9',
  'Year_10',
  'Year_11',
  'Year_12',
  'No_value',
] as const
export const highestSchoolLevelCodes = {
  Did_not_go_to_school: '02',
  Year_8_or_below: '08',
  Year_9: '09',
  Year_10: '10',
  Year_11: '11',
  Year_12: '12',
  No_value: '@@',
} as const satisfies Record<(typeof highestSchoolLevels)[number], string>

/** AVETMISS 8.0 labour force status identifier. */
export const labourForceStatuses = [
  'Full_time_employee',
  'Part_time_employee',
  'Self_employed_not_employing_others',
  'Employer',
  'Unpaid_worker_in_family_business',
  'Unemployed_seeking_full_time_work',
  'Unemployed_seeking_part_time_work',
  'Not_employed_not_seeking_employment',
  'No_value',
] as const
export const labourForceStatusCodes = {
  Full_time_employee: '01',
  Part_time_employee: '02',
  Self_employed_not_employing_others: '03',
  Employer: '04',
  Unpaid_worker_in_family_business: '05',
  Unemployed_seeking_full_time_work: '06',
  Unemployed_seeking_part_time_work: '07',
  Not_employed_not_seeking_employment: '08',
  No_value: '@@',
} as const satisfies Record<(typeof labourForceStatuses)[number], string>

/** AVETMISS 8.0 disability type identifier (NAT00090). Only given when the student has a disability, so no No_value. */
export const disabilityTypes = [
  'Hearing_deaf',
  'Physical',
  'Intellectual',
  'Learning',
  'Mental_illness',
  'Acquired_brain_impairment',
  'Vision',
  'Medical_condition',
  'Other',
  'Unspecified',
] as const
export const disabilityTypeCodes = {
  Hearing_deaf: '11',
  Physical: '12',
  Intellectual: '13',
  Learning: '14',
  Mental_illness: '15',
  Acquired_brain_impairment: '16',
  Vision: '17',
  Medical_condition: '18',
  Other: '19',
  Unspecified: '99',
} as const satisfies Record<(typeof disabilityTypes)[number], string>

/** AVETMISS 8.0 prior educational achievement identifier (NAT00100). */
export const priorEducationalAchievementTypes = [
  'Bachelor_degree_or_higher',
  'Advanced_diploma_or_associate_degree',
  'Diploma',
  'Certificate_IV',
  'Certificate_III',
  'Certificate_II',
  'Certificate_I',
  'Miscellaneous_education',
] as const
export const priorEducationalAchievementTypeCodes = {
  Bachelor_degree_or_higher: '008',
  Advanced_diploma_or_associate_degree: '410',
  Diploma: '420',
  Certificate_IV: '511',
  Certificate_III: '514',
  Certificate_II: '521',
  Certificate_I: '524',
  Miscellaneous_education: '990',
} as const satisfies Record<(typeof priorEducationalAchievementTypes)[number], string>

/** AVETMISS 8.0 prior educational achievement recognition identifier (NAT00100). */
export const priorEducationalAchievementRecognitions = ['Australian', 'Australian_equivalent', 'International'] as const
export const priorEducationalAchievementRecognitionCodes = {
  Australian: 'A',
  Australian_equivalent: 'E',
  International: 'I',
} as const satisfies Record<(typeof priorEducationalAchievementRecognitions)[number], string>

// ---------------------------------------------------------------------------------------------------
// Addresses (AVETMISS 8.0 state identifier; NAT00020, NAT00080, NAT00085)

/** AVETMISS 8.0 state identifier. Used as is by delivery locations, whose state must be known. */
export const states = [
  'NSW',
  'VIC',
  'QLD',
  'SA',
  'WA',
  'TAS',
  'NT',
  'ACT',
  'Other_Australian_territory',
  'Overseas',
] as const
export const stateCodes = {
  NSW: '01',
  VIC: '02',
  QLD: '03',
  SA: '04',
  WA: '05',
  TAS: '06',
  NT: '07',
  ACT: '08',
  Other_Australian_territory: '09',
  Overseas: '99',
} as const satisfies Record<(typeof states)[number], string>

/** AVETMISS 8.0 state identifier plus "not stated", for a student's addresses. */
export const studentAddressStates = [...states, 'No_value'] as const
export const studentAddressStateCodes = {
  ...stateCodes,
  No_value: '@@',
} as const satisfies Record<(typeof studentAddressStates)[number], string>

// ---------------------------------------------------------------------------------------------------
// Program and subject (AVETMISS 8.0 NAT00030A, NAT00060)

/** AVETMISS 8.0 program recognition identifier. */
export const programRecognitions = [
  'Training_package_qualification',
  'Accredited_course',
  'Training_package_skill_set',
  'Other_course',
  'Higher_level_qualification',
  'Locally_recognised_skill_set',
] as const
export const programRecognitionCodes = {
  Training_package_qualification: '11',
  Accredited_course: '12',
  Training_package_skill_set: '13',
  Other_course: '14',
  Higher_level_qualification: '15',
  Locally_recognised_skill_set: '16',
} as const satisfies Record<(typeof programRecognitions)[number], string>

/** AVETMISS 8.0 program level of education identifier (ASCED levels). */
export const programLevelsOfEducation = [
  'Graduate_diploma',
  'Professional_specialist_qualification_graduate_diploma_level',
  'Graduate_certificate',
  'Professional_specialist_qualification_graduate_certificate_level',
  'Bachelor_degree_honours',
  'Bachelor_degree_pass',
  'Advanced_diploma',
  'Associate_degree',
  'Diploma',
  'Certificate_IV',
  'Certificate_III',
  'Certificate_II',
  'Certificate_I',
  'Year_12',
  'Year_11',
  'Year_10',
  'Other_non_award_course',
  'Statement_of_attainment_not_identifiable_by_level',
  'Bridging_and_enabling_course_not_identifiable_by_level',
  'Education_not_elsewhere_classified',
] as const
export const programLevelOfEducationCodes = {
  Graduate_diploma: '211',
  Professional_specialist_qualification_graduate_diploma_level: '213',
  Graduate_certificate: '221',
  Professional_specialist_qualification_graduate_certificate_level: '222',
  Bachelor_degree_honours: '311',
  Bachelor_degree_pass: '312',
  Advanced_diploma: '411',
  Associate_degree: '413',
  Diploma: '421',
  Certificate_IV: '511',
  Certificate_III: '514',
  Certificate_II: '521',
  Certificate_I: '524',
  Year_12: '611',
  Year_11: '613',
  Year_10: '621',
  Other_non_award_course: '912',
  Statement_of_attainment_not_identifiable_by_level: '991',
  Bridging_and_enabling_course_not_identifiable_by_level: '992',
  Education_not_elsewhere_classified: '999',
} as const satisfies Record<(typeof programLevelsOfEducation)[number], string>

/** AVETMISS 8.0 subject flag (C unit of competency, M module). */
export const subjectTypes = ['Unit_of_competency', 'Module'] as const
export const subjectTypeCodes = {
  Unit_of_competency: 'C',
  Module: 'M',
} as const satisfies Record<(typeof subjectTypes)[number], string>

// ---------------------------------------------------------------------------------------------------
// Enrolments (AVETMISS 8.0 NAT00120, NAT00130)

/** AVETMISS 8.0 funding source - national. */
export const fundingSourcesNational = [
  'Commonwealth_and_state_general_purpose_recurrent',
  'Commonwealth_specific_purpose_program',
  'State_specific_purpose_program',
  'Domestic_full_fee_paying',
  'International_onshore',
  'International_offshore',
  'Revenue_from_another_RTO',
] as const
export const fundingSourceNationalCodes = {
  Commonwealth_and_state_general_purpose_recurrent: '11',
  Commonwealth_specific_purpose_program: '13',
  State_specific_purpose_program: '15',
  Domestic_full_fee_paying: '20',
  International_onshore: '31',
  International_offshore: '32',
  Revenue_from_another_RTO: '80',
} as const satisfies Record<(typeof fundingSourcesNational)[number], string>

/** AVETMISS 8.0 commencing program identifier. */
export const commencingPrograms = ['Commencing', 'Continuing', 'Subject_enrolment_only'] as const
export const commencingProgramCodes = {
  Commencing: '3',
  Continuing: '4',
  Subject_enrolment_only: '8',
} as const satisfies Record<(typeof commencingPrograms)[number], string>
/** The part of the commencing program list that makes sense for a program enrolment (8 is for subjects outside a program). */
export const programCommencingPrograms = ['Commencing', 'Continuing'] as const

/** AVETMISS 8.0 study reason identifier. */
export const studyReasons = [
  'To_get_a_job',
  'To_develop_my_existing_business',
  'To_start_my_own_business',
  'To_try_for_a_different_career',
  'To_get_a_better_job_or_promotion',
  'It_was_a_requirement_of_my_job',
  'I_wanted_extra_skills_for_my_job',
  'To_get_into_another_course_of_study',
  'Other_reasons',
  'For_personal_interest_or_self_development',
  'To_get_skills_for_community_or_voluntary_work',
  'No_value',
] as const
export const studyReasonCodes = {
  To_get_a_job: '01',
  To_develop_my_existing_business: '02',
  To_start_my_own_business: '03',
  To_try_for_a_different_career: '04',
  To_get_a_better_job_or_promotion: '05',
  It_was_a_requirement_of_my_job: '06',
  I_wanted_extra_skills_for_my_job: '07',
  To_get_into_another_course_of_study: '08',
  Other_reasons: '11',
  For_personal_interest_or_self_development: '12',
  To_get_skills_for_community_or_voluntary_work: '13',
  No_value: '@@',
} as const satisfies Record<(typeof studyReasons)[number], string>

/** AVETMISS 8.0 school type identifier (for VET in schools activity). */
export const schoolTypes = [
  'Government',
  'Catholic',
  'Independent',
  'TAFE',
  'Community_based_adult_education',
  'Private_RTO',
  'Home_school',
] as const
export const schoolTypeCodes = {
  Government: '21',
  Catholic: '25',
  Independent: '27',
  TAFE: '31',
  Community_based_adult_education: '61',
  Private_RTO: '91',
  Home_school: '92',
} as const satisfies Record<(typeof schoolTypes)[number], string>

/** AVETMISS 8.0 predominant delivery mode (I, E, W, N for RPL or credit transfer). */
export const predominantDeliveryModes = ['Internal', 'External', 'Workplace_based', 'Not_applicable'] as const
export const predominantDeliveryModeCodes = {
  Internal: 'I',
  External: 'E',
  Workplace_based: 'W',
  Not_applicable: 'N',
} as const satisfies Record<(typeof predominantDeliveryModes)[number], string>

/**
 * AVETMISS 8.0 outcome identifier - national. The new standard splits this code into studentStatus and
 * studentStatusReason (domain notes), so Withdrawn, Continuing and Not_yet_started overlap the lifecycle;
 * keeping them agreed is a business rule, not a structural one.
 */
export const outcomesNational = [
  'Competency_achieved',
  'Competency_not_achieved',
  'Withdrawn',
  'Incomplete_due_to_RTO_closure',
  'RPL_granted',
  'RPL_not_granted',
  'Credit_transfer',
  'Superseded_subject',
  'Continuing',
  'Non_assessable_satisfactorily_completed',
  'Non_assessable_not_satisfactorily_completed',
  'Not_yet_started',
] as const
export const outcomeNationalCodes = {
  Competency_achieved: '20',
  Competency_not_achieved: '30',
  Withdrawn: '40',
  Incomplete_due_to_RTO_closure: '41',
  RPL_granted: '51',
  RPL_not_granted: '52',
  Credit_transfer: '60',
  Superseded_subject: '61',
  Continuing: '70',
  Non_assessable_satisfactorily_completed: '81',
  Non_assessable_not_satisfactorily_completed: '82',
  Not_yet_started: '85',
} as const satisfies Record<(typeof outcomesNational)[number], string>

// ---------------------------------------------------------------------------------------------------
// Classifications: code strings, not enumerations. Their full lists are large, published and revised,
// so they come through the reference-data loader; the schema checks only the shape of the code.
// "Not stated" is expressed by leaving the field out.

/** ABS SACC country code, 4 digits (1101 Australia, 1201 New Zealand). */
export const countryCodePattern = '^\\d{4}$'
/** ABS ASCL 2016 language code, 4 digits (1201 English, 7104 Mandarin, 9701 Auslan). */
export const languageCodePattern = '^\\d{4}$'
/** ASCED field of education, 4 digits (program, NAT00030A). */
export const programFieldOfEducationPattern = '^\\d{4}$'
/** ASCED field of education, 6 digits (subject, NAT00060). */
export const subjectFieldOfEducationPattern = '^\\d{6}$'
/** ANZSCO occupation, 6 digits (NAT00030A). */
export const occupationCodePattern = '^\\d{6}$'
/** AVETMISS postcode: 4 digits, or OSPC for an overseas address. */
export const postcodePattern = '^(\\d{4}|OSPC)$'
/**
 * Unique student identifier: 10 characters from 23456789ABCDEFGHJKLMNPQRSTUVWXYZ (no 0, 1, I, O), or
 * INTOFF for offshore international students. The Luhn mod 32 check character is a business rule.
 */
export const usiPattern = '^([2-9A-HJ-NP-Z]{10}|INTOFF)$'
