// Subject enrolments to NAT00120 training activity lines, and program completions to NAT00130. A
// NAT00120 line names its location, client, subject and program by their identifiers, so each is
// found by following the enrolment's references: offering to subject, program enrolment to program
// offering to program. Offerings themselves have no NAT line; lifecycles are not written either, the
// outcome and activity dates they are derived from are (lifecycle.ts).
import type { NatValues } from '../../layouts/index.ts'
import { outcomeFromLifecycle } from '../lifecycle.ts'
import { defined } from '../objects.ts'
import type { ProgramEnrolmentRecord, SubjectEnrolmentRecord } from '../resource-records.ts'
import { digits, type ExportContext, yesNo } from './context.ts'

export interface ActivityLines {
  NAT00120: NatValues<'NAT00120'>[]
  NAT00130: NatValues<'NAT00130'>[]
}

export function activityToNat(context: ExportContext): ActivityLines {
  const lines: ActivityLines = { NAT00120: [], NAT00130: [] }
  const withActivity = new Set<string>()
  for (const [uid, enrolment] of context.byUid.SubjectEnrolment) {
    const line = activityLine(context, uid, enrolment)
    if (!line) continue
    lines.NAT00120.push(line)
    if (enrolment.programEnrolmentUID) withActivity.add(enrolment.programEnrolmentUID.toLowerCase())
  }
  for (const [uid, enrolment] of context.byUid.ProgramEnrolment) {
    if (!withActivity.has(uid)) {
      context.problem(
        'ProgramEnrolment',
        uid,
        undefined,
        'No subject enrolment written to NAT00120 belongs to the program enrolment: NAT knows a program enrolment only through its activity, so it is not written',
      )
      continue
    }
    const completion = completionLine(context, uid, enrolment)
    if (completion) lines.NAT00130.push(completion)
  }
  return lines
}

/** The identifiers a subject enrolment's line names, found through its references; undefined (reported) where one is missing. */
function identifiersOf(context: ExportContext, uid: string, enrolment: SubjectEnrolmentRecord) {
  const missing = (field: string, what: string, value: string | undefined) => {
    context.problem(
      'SubjectEnrolment',
      uid,
      field,
      `${what} is not among the records; the activity is not written`,
      value,
    )
    return undefined
  }
  const [first, ...others] = enrolment.locations
  for (const [index, other] of others.entries()) {
    context.problem(
      'SubjectEnrolment',
      uid,
      `locations[${index + 1}].deliveryLocationUID`,
      'A NAT00120 line has one delivery location; only the first location is written',
      other.deliveryLocationUID,
    )
  }
  const location = context.record('DeliveryLocation', first?.deliveryLocationUID)
  if (!location) return missing('locations[0].deliveryLocationUID', 'The delivery location', first?.deliveryLocationUID)
  const client = context.record('Student', enrolment.studentUID)?.clientIdentifier
  if (client === undefined) return missing('studentUID', 'A student with a clientIdentifier', enrolment.studentUID)
  const offering = context.record('SubjectOffering', enrolment.subjectOfferingUID)
  if (!offering) return missing('subjectOfferingUID', 'The subject offering', enrolment.subjectOfferingUID)
  const subject = context.record('Subject', offering.subjectUID)
  if (!subject) return missing('subjectOfferingUID', 'The subject of the subject offering', offering.subjectUID)
  let program: { enrolment: ProgramEnrolmentRecord; identifier: string } | undefined
  if (enrolment.programEnrolmentUID !== undefined) {
    const programEnrolment = context.record('ProgramEnrolment', enrolment.programEnrolmentUID)
    const programOffering = context.record('ProgramOffering', programEnrolment?.programOfferingUID)
    const identifier = context.record('Program', programOffering?.programUID)?.programIdentifier
    if (!programEnrolment || identifier === undefined) {
      return missing(
        'programEnrolmentUID',
        'The program enrolment, its offering or its program',
        enrolment.programEnrolmentUID,
      )
    }
    program = { enrolment: programEnrolment, identifier }
  }
  return { location: location.deliveryLocationIdentifier, client, subject: subject.subjectIdentifier, program }
}

function activityLine(
  context: ExportContext,
  uid: string,
  enrolment: SubjectEnrolmentRecord,
): NatValues<'NAT00120'> | undefined {
  const identifiers = identifiersOf(context, uid, enrolment)
  if (!identifiers) return undefined
  const code = (field: string, dataset: string, word: string | undefined) =>
    context.code('SubjectEnrolment', uid, field, dataset, word)
  const fundingSourceNational = code(
    'fundingSourceNational',
    'funding-source-national',
    enrolment.fundingSourceNational,
  )
  const commencingProgram = code('commencingProgram', 'commencing-program', enrolment.commencingProgram)
  // Both are required in NAT00120 and have no "not stated": the line cannot be written without them.
  if (fundingSourceNational === undefined || commencingProgram === undefined) return undefined
  const mode = enrolment.deliveryMode
  const programEnrolment = identifiers.program?.enrolment
  return defined({
    trainingOrganisationIdentifier: context.rtoCode,
    deliveryLocationIdentifier: identifiers.location,
    clientIdentifier: identifiers.client,
    subjectIdentifier: identifiers.subject,
    programIdentifier: identifiers.program?.identifier,
    activityStartDate: enrolment.activityStartDate,
    activityEndDate: enrolment.activityEndDate,
    deliveryModeIdentifier: [mode.internal, mode.external, mode.workplace].map(yesNo).join(''),
    outcomeIdentifierNational:
      code('outcome.outcomeIdentifierNational', 'outcome-national', enrolment.outcome?.outcomeIdentifierNational) ??
      outcomeFromLifecycle(enrolment.lifecycle),
    fundingSourceNational,
    commencingProgramIdentifier: commencingProgram,
    trainingContractIdentifier: programEnrolment?.trainingContractIdentifier,
    clientIdentifierApprenticeships: programEnrolment?.apprenticeshipClientIdentifier,
    studyReasonIdentifier: code('studyReason', 'study-reason', enrolment.studyReason),
    vetInSchoolsFlag: yesNo(enrolment.isVetInSchools),
    specificFundingIdentifier: enrolment.specificFundingIdentifier,
    schoolTypeIdentifier: code('schoolType', 'school-type', enrolment.schoolType),
    outcomeIdentifierTrainingOrganisation: enrolment.outcome?.outcomeIdentifierTrainingOrganisation,
    hoursAttended: digits(enrolment.hoursAttended),
    scheduledHours: digits(enrolment.scheduledHours),
    // Left blank when it does not translate: the import derives it again from the delivery mode letters.
    predominantDeliveryMode: code(
      'predominantDeliveryMode',
      'predominant-delivery-mode',
      enrolment.predominantDeliveryMode,
    ),
  })
}

function completionLine(
  context: ExportContext,
  uid: string,
  enrolment: ProgramEnrolmentRecord,
): NatValues<'NAT00130'> | undefined {
  const completion = enrolment.programCompletion
  if (!completion) return undefined
  const client = context.record('Student', enrolment.studentUID)?.clientIdentifier
  const offering = context.record('ProgramOffering', enrolment.programOfferingUID)
  const program = context.record('Program', offering?.programUID)?.programIdentifier
  if (client === undefined || program === undefined) {
    context.problem(
      'ProgramEnrolment',
      uid,
      client === undefined ? 'studentUID' : 'programOfferingUID',
      'The student (with a clientIdentifier) or the program of the program enrolment is not among the records; the completion is not written',
    )
    return undefined
  }
  return defined({
    trainingOrganisationIdentifier: context.rtoCode,
    programIdentifier: program,
    clientIdentifier: client,
    dateProgramCompleted: completion.dateProgramCompleted,
    issuedFlag: yesNo(completion.isParchmentIssued),
    parchmentIssueDate: completion.parchmentIssueDate,
    parchmentNumber: completion.parchmentNumber,
  })
}
