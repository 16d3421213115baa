// Student: a learner (AVETMISS 8.0 NAT00080 client, NAT00085 contact details, NAT00090 disability,
// NAT00100 prior educational achievement). AVETMISS Y/N flags are booleans; "not stated" (@) is the
// field left out, or No_value where the list carries it.
import Type from 'typebox'
import { DateString, Optional, Strict, StringEnum, Uuid4 } from '../../platform/http/types.ts'
import {
  countryCodePattern,
  disabilityTypes,
  genders,
  highestSchoolLevels,
  indigenousStatuses,
  labourForceStatuses,
  languageCodePattern,
  priorEducationalAchievementRecognitions,
  priorEducationalAchievementTypes,
  surveyAvailabilities,
  usiPattern,
} from './code-lists.ts'
import { PostalAddress, StudentAddress, Text, commonFields, resourceOptions } from './common.schemas.ts'

const Telephone = (description: string) => Type.String({ pattern: '^\\+?[0-9][0-9 ()-]*$', maxLength: 20, description })
const Email = (description: string) => Type.String({ format: 'email', maxLength: 80, description })

const PriorEducationalAchievement = Strict(
  {
    priorEducationalAchievement: StringEnum(priorEducationalAchievementTypes, {
      description: 'level of the prior achievement (AVETMISS prior educational achievement identifier)',
    }),
    recognition: StringEnum(priorEducationalAchievementRecognitions, {
      description:
        'where it is recognised: Australian, Australian equivalent or international (AVETMISS recognition identifier A/E/I)',
    }),
  },
  { description: 'one prior educational achievement (AVETMISS NAT00100)' },
)

export const Student = Strict(
  {
    studentUID: Uuid4({ description: 'permanent client-generated identifier of this student (UUID version 4)' }),
    clientIdentifier: Optional(Text(10, "the RTO's own identifier of the student (AVETMISS client identifier, 10)")),
    clientTitle: Optional(Text(4, 'title, e.g. Ms (AVETMISS client title, 4)')),
    firstGivenName: Optional(
      Text(40, 'first given name; left out for a person with one name (AVETMISS client first given name, 40)'),
    ),
    familyName: Text(40, 'family name, or the only name of a person with one name (AVETMISS client family name, 40)'),
    dateOfBirth: Optional(DateString({ description: 'date of birth, YYYY-MM-DD' })),
    gender: Optional(StringEnum(genders, { description: 'gender (AVETMISS sex)' })),
    permanentAddress: Optional(StudentAddress('usual residential address (AVETMISS residential address)')),
    termAddress: Optional(StudentAddress('address while studying, when it differs from the permanent address')),
    postalAddress: Optional(PostalAddress),
    indigenousStatus: Optional(
      StringEnum(indigenousStatuses, {
        description: 'Aboriginal and Torres Strait Islander origin (AVETMISS Indigenous status identifier)',
      }),
    ),
    hasDisability: Optional(
      Type.Boolean({
        description:
          'whether the student considers themselves to have a disability, impairment or long-term condition (AVETMISS disability flag)',
      }),
    ),
    disabilities: Optional(
      Type.Array(
        StringEnum(disabilityTypes, { description: 'type of disability (AVETMISS disability type identifier)' }),
        {
          minItems: 1,
          maxItems: disabilityTypes.length,
          uniqueItems: true,
          description: 'types of disability, each once, when hasDisability is true (AVETMISS NAT00090)',
        },
      ),
    ),
    hasPriorEducationalAchievement: Optional(
      Type.Boolean({
        description:
          'whether the student has successfully completed any prior qualification (AVETMISS prior educational achievement flag)',
      }),
    ),
    priorEducationalAchievements: Optional(
      Type.Array(PriorEducationalAchievement, {
        // Each pair of level and recognition once: more items than there are pairs must repeat one.
        minItems: 1,
        maxItems: priorEducationalAchievementTypes.length * priorEducationalAchievementRecognitions.length,
        uniqueItems: true,
        description:
          'prior qualifications completed, each level and recognition once, when hasPriorEducationalAchievement is true (AVETMISS NAT00100)',
      }),
    ),
    highestSchoolLevelCompleted: Optional(
      StringEnum(highestSchoolLevels, {
        description: 'highest completed level of secondary school (AVETMISS highest school level completed identifier)',
      }),
    ),
    highestSchoolLevelCompletedYear: Optional(
      Type.Integer({
        minimum: 1900,
        maximum: 2100,
        description: 'calendar year the highest school level was completed',
      }),
    ),
    isAtSchool: Optional(
      Type.Boolean({ description: 'whether the student is attending secondary school (AVETMISS at school flag)' }),
    ),
    languageSpokenAtHome: Optional(
      Type.String({
        pattern: languageCodePattern,
        description: 'main language other than English spoken at home, or 1201 English; ABS ASCL 4-digit code',
      }),
    ),
    countryOfBirth: Optional(
      Type.String({ pattern: countryCodePattern, description: 'country of birth, ABS SACC 4-digit code' }),
    ),
    labourForceStatus: Optional(
      StringEnum(labourForceStatuses, {
        description: 'employment status at enrolment (AVETMISS labour force status identifier)',
      }),
    ),
    uniqueStudentIdentifier: Optional(
      Type.String({
        pattern: usiPattern,
        description: 'Unique Student Identifier (USI): 10 characters, or INTOFF for an offshore international student',
      }),
    ),
    surveyAvailability: Optional(
      StringEnum(surveyAvailabilities, {
        description:
          'whether the student may be contacted for surveys; Available requires emailAddressPrimary (rule BRTS01180)',
      }),
    ),
    emailAddressPrimary: Optional(Email('primary email address (AVETMISS email address, 80)')),
    emailAddressAlternative: Optional(Email('alternative email address (AVETMISS email address alternative, 80)')),
    telephoneNumberHome: Optional(Telephone('home telephone number (AVETMISS telephone number home, 20)')),
    telephoneNumberWork: Optional(Telephone('work telephone number (AVETMISS telephone number work, 20)')),
    telephoneNumberMobile: Optional(Telephone('mobile telephone number (AVETMISS telephone number mobile, 20)')),
    ...commonFields,
  },
  resourceOptions('a learner (AVETMISS NAT00080, NAT00085, NAT00090, NAT00100)'),
)
