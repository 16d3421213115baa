// A small, believable NAT file set of one RTO, written with the package's writer and read back with
// its reader, so that the mapping tests start from records exactly as an import sees them.
import { type NatFileSet, natFileEntries, type NatReadResult, readNatEntries } from '../../src/index.ts'

export const RTO = '90001'

/**
 * Three students, two locations, a classified program (NAT00030A) and a plain one (NAT00030), four
 * subjects, six activities covering a result, continuing, withdrawal inside and outside a program,
 * not yet started, and credit transfer, and one completion.
 */
export function fixtureFileSet(): NatFileSet {
  return {
    NAT00010: [{ trainingOrganisationIdentifier: RTO, trainingOrganisationName: 'Acme Training Institute Pty Ltd' }],
    NAT00020: [
      {
        trainingOrganisationIdentifier: RTO,
        deliveryLocationIdentifier: 'CBD01',
        deliveryLocationName: 'Melbourne CBD Campus',
        postcode: '3000',
        stateIdentifier: '02',
        addressSuburbLocalityOrTown: 'Melbourne',
        countryIdentifier: '1101',
      },
      {
        trainingOrganisationIdentifier: RTO,
        deliveryLocationIdentifier: 'GEEL02',
        deliveryLocationName: 'Geelong Waterfront',
        postcode: '3220',
        stateIdentifier: '02',
        addressSuburbLocalityOrTown: 'Geelong',
        countryIdentifier: '1101',
      },
    ],
    NAT00030A: [
      {
        programIdentifier: 'BSB40120',
        programName: 'Certificate IV in Business',
        nominalHours: '260',
        programRecognitionIdentifier: '11',
        programLevelOfEducationIdentifier: '511',
        programFieldOfEducationIdentifier: '0803',
        anzscoIdentifier: '511112',
        vetFlag: 'Y',
      },
    ],
    NAT00030: [
      { programIdentifier: 'CHC33021', programName: 'Certificate III in Individual Support', nominalHours: '890' },
    ],
    NAT00060: [
      {
        subjectIdentifier: 'BSBWHS411',
        subjectName: 'Implement and monitor WHS policies',
        subjectFieldOfEducationIdentifier: '061301',
        vetFlag: 'Y',
        nominalHours: '40',
      },
      {
        subjectIdentifier: 'BSBCRT411',
        subjectName: 'Apply critical thinking to work practices',
        subjectFieldOfEducationIdentifier: '080301',
        vetFlag: 'Y',
        nominalHours: '60',
      },
      {
        subjectIdentifier: 'CHCCCS031',
        subjectName: 'Provide individualised support',
        vetFlag: 'Y',
        nominalHours: '40',
      },
      {
        subjectIdentifier: 'HLTAID011',
        subjectName: 'Provide First Aid',
        subjectFieldOfEducationIdentifier: '069907',
        vetFlag: 'N',
        nominalHours: '18',
      },
    ],
    NAT00080: [
      {
        clientIdentifier: 'S001',
        nameForEncryption: 'NGUYEN, MAI ANH',
        highestSchoolLevelCompletedIdentifier: '12',
        gender: 'F',
        dateOfBirth: '1998-04-17',
        postcode: '3056',
        indigenousStatusIdentifier: '4',
        languageIdentifier: '6302',
        labourForceStatusIdentifier: '02',
        countryIdentifier: '5105',
        disabilityFlag: 'Y',
        priorEducationalAchievementFlag: 'Y',
        atSchoolFlag: 'N',
        addressSuburbLocalityOrTown: 'Brunswick',
        uniqueStudentIdentifier: '3AW88YH9U5',
        stateIdentifier: '02',
        addressFlatUnitDetails: 'Unit 4',
        addressStreetNumber: '12',
        addressStreetName: 'Sydney Road',
        surveyContactStatus: 'A',
      },
      {
        clientIdentifier: 'S002',
        nameForEncryption: 'WIRRPANDA',
        highestSchoolLevelCompletedIdentifier: '@@',
        gender: '@',
        dateOfBirth: '@@@@@@@@',
        postcode: '@@@@',
        indigenousStatusIdentifier: '@',
        languageIdentifier: '@@@@',
        labourForceStatusIdentifier: '@@',
        countryIdentifier: '@@@@',
        disabilityFlag: '@',
        priorEducationalAchievementFlag: '@',
        atSchoolFlag: '@',
      },
      {
        clientIdentifier: 'S003',
        nameForEncryption: 'SMITH, JOHN',
        highestSchoolLevelCompletedIdentifier: '10',
        gender: 'M',
        dateOfBirth: '2004-11-30',
        postcode: '3220',
        indigenousStatusIdentifier: '1',
        languageIdentifier: '1201',
        labourForceStatusIdentifier: '01',
        countryIdentifier: '1101',
        disabilityFlag: 'N',
        priorEducationalAchievementFlag: 'N',
        atSchoolFlag: 'N',
        addressSuburbLocalityOrTown: 'Geelong',
        stateIdentifier: '@@',
        addressStreetNumber: '7',
        addressStreetName: 'Moorabool Street',
      },
    ],
    NAT00085: [
      {
        clientIdentifier: 'S001',
        clientTitle: 'Ms',
        clientFirstGivenName: 'Mai',
        clientFamilyName: 'Nguyen',
        addressPostalDeliveryBox: 'PO Box 123',
        addressPostalSuburbLocalityOrTown: 'Brunswick',
        postcode: '3056',
        stateIdentifier: '02',
        telephoneNumberMobile: '0412 345 678',
        emailAddress: 'mai.nguyen@example.com',
        emailAddressAlternative: 'mai@example.org',
      },
      { clientIdentifier: 'S002', clientFirstGivenName: '@', clientFamilyName: 'Wirrpanda' },
      {
        clientIdentifier: 'S003',
        clientFirstGivenName: 'John',
        clientFamilyName: 'Smith',
        telephoneNumberHome: '03 5222 1234',
        telephoneNumberWork: '03 5222 9999',
      },
    ],
    NAT00090: [
      { clientIdentifier: 'S001', disabilityTypeIdentifier: '14' },
      { clientIdentifier: 'S001', disabilityTypeIdentifier: '17' },
    ],
    NAT00100: [
      {
        clientIdentifier: 'S001',
        priorEducationalAchievementIdentifier: '524',
        priorEducationalAchievementRecognitionIdentifier: 'A',
      },
    ],
    NAT00120: [
      activity({
        location: 'CBD01',
        client: 'S001',
        subject: 'BSBWHS411',
        program: 'BSB40120',
        start: '2026-02-02',
        end: '2026-05-29',
        mode: 'YNN',
        outcome: '20',
        funding: '11',
        commencing: '3',
        extra: {
          studyReasonIdentifier: '01',
          predominantDeliveryMode: 'I',
          scheduledHours: '40',
          hoursAttended: '38',
          outcomeIdentifierTrainingOrganisation: 'PA',
          specificFundingIdentifier: 'SKILLS01',
        },
      }),
      // Predominant delivery mode left blank: one mode named by the letters (external).
      activity({
        location: 'CBD01',
        client: 'S001',
        subject: 'BSBCRT411',
        program: 'BSB40120',
        start: '2026-03-02',
        end: '2026-06-26',
        mode: 'NYN',
        outcome: '70',
        funding: '11',
        commencing: '3',
        extra: { studyReasonIdentifier: '01' },
      }),
      // A subject outside any program, withdrawn.
      activity({
        location: 'GEEL02',
        client: 'S002',
        subject: 'HLTAID011',
        program: undefined,
        start: '2026-04-01',
        end: '2026-04-01',
        mode: 'YNY',
        outcome: '40',
        funding: '20',
        commencing: '8',
        extra: { predominantDeliveryMode: 'W', studyReasonIdentifier: '@@' },
      }),
      // Not yet started, in an apprenticeship.
      activity({
        location: 'CBD01',
        client: 'S003',
        subject: 'CHCCCS031',
        program: 'CHC33021',
        start: '2026-07-01',
        end: '2026-12-11',
        mode: 'NNY',
        outcome: '85',
        funding: '13',
        commencing: '3',
        extra: {
          predominantDeliveryMode: 'W',
          trainingContractIdentifier: 'TC12345',
          clientIdentifierApprenticeships: 'A998877',
          vetInSchoolsFlag: 'Y',
          schoolTypeIdentifier: '21',
        },
      }),
      // Credit transfer, continuing a program from last year.
      activity({
        location: 'CBD01',
        client: 'S002',
        subject: 'BSBWHS411',
        program: 'BSB40120',
        start: '2026-01-15',
        end: '2026-01-15',
        mode: 'NNN',
        outcome: '60',
        funding: '20',
        commencing: '4',
        extra: { predominantDeliveryMode: 'N' },
      }),
      // Withdrawn from the only subject of a program: the program enrolment is cancelled too.
      activity({
        location: 'GEEL02',
        client: 'S002',
        subject: 'BSBCRT411',
        program: 'CHC33021',
        start: '2026-05-04',
        end: '2026-05-20',
        mode: 'YNN',
        outcome: '40',
        funding: '11',
        commencing: '3',
        extra: { predominantDeliveryMode: 'I' },
      }),
    ],
    NAT00130: [
      {
        trainingOrganisationIdentifier: RTO,
        programIdentifier: 'BSB40120',
        clientIdentifier: 'S001',
        dateProgramCompleted: '2026-06-30',
        issuedFlag: 'Y',
        parchmentIssueDate: '2026-07-10',
        parchmentNumber: 'P-0001',
      },
    ],
  }
}

interface ActivityFacts {
  location: string
  client: string
  subject: string
  program: string | undefined
  start: string
  end: string
  mode: string
  outcome: string
  funding: string
  commencing: string
  extra?: Record<string, string>
}

function activity(facts: ActivityFacts) {
  return {
    trainingOrganisationIdentifier: RTO,
    deliveryLocationIdentifier: facts.location,
    clientIdentifier: facts.client,
    subjectIdentifier: facts.subject,
    ...(facts.program ? { programIdentifier: facts.program } : {}),
    activityStartDate: facts.start,
    activityEndDate: facts.end,
    deliveryModeIdentifier: facts.mode,
    outcomeIdentifierNational: facts.outcome,
    fundingSourceNational: facts.funding,
    commencingProgramIdentifier: facts.commencing,
    vetInSchoolsFlag: 'N',
    ...facts.extra,
  }
}

/** Writes a file set with the package's writer and reads it back: the records an import gets. */
export function readFileSet(fileSet: NatFileSet): NatReadResult {
  return readNatEntries(natFileEntries(fileSet))
}
