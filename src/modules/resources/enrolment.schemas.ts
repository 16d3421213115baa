// ProgramEnrolment (AVETMISS 8.0 NAT00130 and the program parts of NAT00120) and SubjectEnrolment
// (NAT00120 training activity), with their child objects: the lifecycle history, third-party service
// providers, program completion, delivery mode, locations and outcome.
import Type from 'typebox'
import { DateString, Optional, Strict, StringEnum, Uuid4 } from '../../platform/http/types.ts'
import {
  commencingPrograms,
  fundingSourcesNational,
  outcomesNational,
  participantInvolvementTypes,
  predominantDeliveryModes,
  programCommencingPrograms,
  schoolTypes,
  studentStatusReasons,
  studentStatuses,
  studyReasons,
} from './code-lists.ts'
import { Hours, Text, commonFields, resourceOptions } from './common.schemas.ts'

/** One state of an enrolment's lifecycle (spec: States and transitions, Enrolment lifecycle). */
export const LifecycleState = Strict(
  {
    studentStatus: StringEnum(studentStatuses, { description: 'state of the enrolment from studentActivityDate' }),
    studentActivityDate: DateString({ description: 'date the state took effect, YYYY-MM-DD' }),
    studentStatusReason: Optional(
      StringEnum(studentStatusReasons, {
        description: 'why: a deferral reason for Deferred, a cancellation reason for Cancelled',
      }),
    ),
  },
  { description: 'one state of the enrolment lifecycle' },
)

// The complete history is the only record of the state: the latest entry (by studentActivityDate) is the
// current state, and no top-level copy exists to disagree with it. Which moves are allowed is a business rule.
// Array bounds (docs/decisions.md, "Array bounds"): far above what a real record reaches, low enough
// that no request can make the service store or validate an unbounded list.
export const MAX_LIFECYCLE_STATES = 50
export const MAX_THIRD_PARTY_PROVIDERS = 10
export const MAX_SUBJECT_LOCATIONS = 50

const Lifecycle = Type.Array(LifecycleState, {
  minItems: 1,
  maxItems: MAX_LIFECYCLE_STATES,
  uniqueItems: true,
  description: `every lifecycle state of the enrolment to date, at most ${MAX_LIFECYCLE_STATES}, each once; the latest is the current state. Sent complete with every upload`,
})

// An array, not a single object: the spec names the child in the plural and an enrolment may involve
// more than one third party (one delivers training, another recruits). Left out when there is none, so
// an empty array is refused rather than read as "none".
export const ThirdPartyServiceProvider = Strict(
  {
    participantInvolvementType: StringEnum(participantInvolvementTypes, {
      description: 'what the third party does for this enrolment',
    }),
    trainingOrganisationIdentifier: Optional(
      Text(
        10,
        'national RTO code of the third party, when it is an RTO (AVETMISS training organisation identifier, 10)',
      ),
    ),
    organisationName: Optional(Text(100, 'legal or trading name of the third party')),
    australianBusinessNumber: Optional(
      Type.String({ pattern: '^\\d{11}$', description: 'ABN of the third party, 11 digits' }),
    ),
  },
  { description: 'an organisation that provides services for the enrolment on behalf of the RTO' },
)

const ThirdPartyServiceProviders = Type.Array(ThirdPartyServiceProvider, {
  minItems: 1,
  maxItems: MAX_THIRD_PARTY_PROVIDERS,
  uniqueItems: true,
  description: `third parties providing services for this enrolment, at most ${MAX_THIRD_PARTY_PROVIDERS}, each once; left out when there are none`,
})

const ProgramCompletion = Strict(
  {
    dateProgramCompleted: DateString({
      description: 'date all requirements of the program were met (AVETMISS date program completed)',
    }),
    isParchmentIssued: Type.Boolean({
      description: 'whether the qualification or statement of attainment has been issued (AVETMISS issued flag)',
    }),
    parchmentIssueDate: Optional(
      DateString({ description: 'date the parchment was issued (AVETMISS parchment issue date)' }),
    ),
    parchmentNumber: Optional(Text(25, 'number printed on the parchment (AVETMISS parchment number, 25)')),
  },
  { description: 'completion of the program (AVETMISS NAT00130); left out until the program is completed' },
)

const fundingSourceNational = StringEnum(fundingSourcesNational, {
  description: 'national source of funding (AVETMISS funding source - national)',
})
const studyReason = StringEnum(studyReasons, {
  description: 'main reason for undertaking the study (AVETMISS study reason identifier)',
})

export const ProgramEnrolment = Strict(
  {
    programEnrolmentUID: Uuid4({
      description: 'permanent client-generated identifier of this program enrolment (UUID version 4)',
    }),
    studentUID: Uuid4({ description: 'the student enrolled (references a Student)' }),
    programOfferingUID: Uuid4({ description: 'the program offering enrolled in (references a ProgramOffering)' }),
    commencementDate: DateString({ description: 'date the student starts, or started, the program' }),
    expectedCompletionDate: Optional(
      DateString({ description: 'date the student is expected to complete the program' }),
    ),
    commencingProgram: StringEnum(programCommencingPrograms, {
      description:
        'whether the student commences the program this year or continues from a previous year (AVETMISS commencing program identifier)',
    }),
    studyReason: Optional(studyReason),
    fundingSourceNational,
    trainingContractIdentifier: Optional(
      Text(10, 'apprenticeship or traineeship training contract number (AVETMISS training contract identifier, 10)'),
    ),
    apprenticeshipClientIdentifier: Optional(
      Text(
        10,
        'client identifier given by the state training authority for the apprenticeship (AVETMISS client identifier - apprenticeships, 10)',
      ),
    ),
    programCompletion: Optional(ProgramCompletion),
    lifecycle: Lifecycle,
    thirdPartyServiceProviders: Optional(ThirdPartyServiceProviders),
    ...commonFields,
  },
  resourceOptions('enrolment of a student in a program offering (AVETMISS NAT00130 and the program parts of NAT00120)'),
)

const DeliveryMode = Strict(
  {
    internal: Type.Boolean({ description: 'delivered at least partly in a classroom or other RTO facility' }),
    external: Type.Boolean({ description: 'delivered at least partly remotely or online' }),
    workplace: Type.Boolean({ description: 'delivered at least partly in the workplace' }),
  },
  {
    description:
      'the ways the subject is delivered; all false for RPL or credit transfer (AVETMISS delivery mode identifier, three Y/N letters)',
  },
)

const SubjectEnrolmentLocation = Strict(
  {
    deliveryLocationUID: Uuid4({ description: 'where the training takes place (references a DeliveryLocation)' }),
    hoursAtLocation: Optional(Hours('scheduled hours of the subject delivered at this location')),
  },
  { description: 'a delivery location of the subject enrolment' },
)

const Outcome = Strict(
  {
    outcomeIdentifierNational: StringEnum(outcomesNational, {
      description: 'result of the subject (AVETMISS outcome identifier - national)',
    }),
    outcomeIdentifierTrainingOrganisation: Optional(
      Text(3, "the RTO's own finer outcome code (AVETMISS outcome identifier - training organisation, 3)"),
    ),
  },
  { description: 'result of the subject enrolment; left out until a result is known' },
)

export const SubjectEnrolment = Strict(
  {
    subjectEnrolmentUID: Uuid4({
      description: 'permanent client-generated identifier of this subject enrolment (UUID version 4)',
    }),
    studentUID: Uuid4({ description: 'the student enrolled (references a Student)' }),
    subjectOfferingUID: Uuid4({ description: 'the subject offering enrolled in (references a SubjectOffering)' }),
    programEnrolmentUID: Optional(
      Uuid4({
        description: 'the program enrolment this subject counts towards, if any (references a ProgramEnrolment)',
      }),
    ),
    activityStartDate: DateString({
      description: 'date training and assessment in the subject starts (AVETMISS activity start date)',
    }),
    activityEndDate: DateString({
      description:
        'date training and assessment in the subject ends or is expected to end (AVETMISS activity end date)',
    }),
    deliveryMode: DeliveryMode,
    predominantDeliveryMode: StringEnum(predominantDeliveryModes, {
      description:
        'the main way the subject is delivered; Not_applicable for RPL or credit transfer (AVETMISS predominant delivery mode)',
    }),
    locations: Type.Array(SubjectEnrolmentLocation, {
      minItems: 1,
      maxItems: MAX_SUBJECT_LOCATIONS,
      'x-uniqueBy': 'deliveryLocationUID',
      description: `the delivery locations of the subject enrolment, at most ${MAX_SUBJECT_LOCATIONS}, each location once`,
    }),
    scheduledHours: Optional(
      Hours('hours of training and assessment scheduled for the student (AVETMISS scheduled hours)'),
    ),
    hoursAttended: Optional(Hours('hours the student attended (AVETMISS hours attended, state extension)')),
    fundingSourceNational,
    commencingProgram: StringEnum(commencingPrograms, {
      description:
        'commencing or continuing the program, or a subject taken outside a program (AVETMISS commencing program identifier)',
    }),
    studyReason: Optional(studyReason),
    isVetInSchools: Type.Boolean({
      description:
        'whether the subject is undertaken as part of a VET in schools program (AVETMISS VET in schools flag)',
    }),
    schoolType: Optional(
      StringEnum(schoolTypes, {
        description: 'type of school, for VET in schools activity (AVETMISS school type identifier)',
      }),
    ),
    specificFundingIdentifier: Optional(
      Text(10, 'identifier of a specific government funding program (AVETMISS specific funding identifier, 10)'),
    ),
    outcome: Optional(Outcome),
    lifecycle: Lifecycle,
    thirdPartyServiceProviders: Optional(ThirdPartyServiceProviders),
    ...commonFields,
  },
  resourceOptions('enrolment of a student in a subject offering (AVETMISS NAT00120)'),
)
