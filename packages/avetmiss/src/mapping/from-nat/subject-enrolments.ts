// A subject enrolment from one NAT00120 training activity line. The line also names the subject
// offering and the program enrolment the enrolment belongs to; those are built from all the lines
// together (offerings.ts, program-enrolments.ts).
import type { NatRecord } from '../../records.ts'
import { subjectLifecycleOf } from '../lifecycle.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import type { ActivityKey } from '../natural-keys.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { DeliveryModeRecord, OutcomeRecord, SubjectEnrolmentRecord } from '../resource-records.ts'
import type { ImportContext } from './context.ts'
import { NatFieldReader } from './field-reader.ts'

/** A NAT00120 line carried as a subject enrolment, with the keys that join it to the rest. */
export interface Activity {
  row: NatRecord<'NAT00120'>
  key: ActivityKey
  enrolment: MappedRecordOf<'SubjectEnrolment'>
}

/** The activity key of a line: location, client, subject, program ('' for none), start date. */
export function activityKeyOf(row: NatRecord<'NAT00120'>): ActivityKey {
  const values = row.values
  return {
    deliveryLocationIdentifier: values.deliveryLocationIdentifier ?? '',
    clientIdentifier: values.clientIdentifier ?? '',
    subjectIdentifier: values.subjectIdentifier ?? '',
    programIdentifier: values.programIdentifier ?? '',
    activityStartDate: values.activityStartDate ?? '',
  }
}

// The delivery mode identifier is three Y/N letters: internal, external, workplace (NNN for RPL or
// credit transfer). The predominant delivery mode's AVETMISS code for each, and N for none.
const DELIVERY_MODE = /^[YN]{3}$/
const PREDOMINANT_OF_LETTER = ['I', 'E', 'W'] as const
const NONE_DELIVERED = 'N'

function deliveryModeOf(letters: string): DeliveryModeRecord {
  return { internal: letters[0] === 'Y', external: letters[1] === 'Y', workplace: letters[2] === 'Y' }
}

/**
 * The subject enrolment of a line, or undefined (reported) when a field the API requires cannot be
 * carried: a date not stated, a delivery mode that is not three Y/N letters, a code without
 * translation, a VET in schools flag that is not Y or N.
 */
export function subjectEnrolmentFrom(context: ImportContext, row: NatRecord<'NAT00120'>): Activity | undefined {
  const origin = new OriginBuilder(row)
  const r = new NatFieldReader(context, row, origin)
  const key = activityKeyOf(row)
  const what = 'subject enrolment'

  // Every field is looked at before the line is given up, so one run names every problem of the line.
  const activityStartDate = r.date('activityStartDate', 'activityStartDate')
  const activityEndDate = r.date('activityEndDate', 'activityEndDate')
  if (activityStartDate === undefined || activityEndDate === undefined) {
    r.problem(
      activityStartDate === undefined ? 'activityStartDate' : 'activityEndDate',
      `The activity dates must be stated: the API requires them, so the ${what} is not carried`,
    )
  }
  const letters = r.raw('deliveryModeIdentifier') ?? ''
  const deliveryModeRead = DELIVERY_MODE.test(letters)
  if (!deliveryModeRead) {
    r.problem(
      'deliveryModeIdentifier',
      `Delivery mode identifier must be three letters Y or N (internal, external, workplace), not "${letters}"; the ${what} is not carried`,
    )
  } else {
    for (const part of ['internal', 'external', 'workplace']) r.from(`deliveryMode.${part}`, 'deliveryModeIdentifier')
  }
  const predominantDeliveryMode = predominantModeOf(context, r, deliveryModeRead ? letters : undefined)
  const fundingSourceNational = r.requiredCode(
    'fundingSourceNational',
    'funding-source-national',
    'fundingSourceNational',
    what,
  )
  const commencingProgram = r.requiredCode(
    'commencingProgramIdentifier',
    'commencing-program',
    'commencingProgram',
    what,
  )
  const isVetInSchools = r.requiredFlag('vetInSchoolsFlag', 'isVetInSchools', what)
  const outcome = outcomeOf(r)
  const scheduledHours = r.number('scheduledHours', 'scheduledHours')
  const hoursAttended = r.number('hoursAttended', 'hoursAttended')
  const studyReason = r.code('studyReasonIdentifier', 'study-reason', 'studyReason')
  const schoolType = r.code('schoolTypeIdentifier', 'school-type', 'schoolType')
  const specificFundingIdentifier = r.text('specificFundingIdentifier', 'specificFundingIdentifier')
  if (
    activityStartDate === undefined ||
    activityEndDate === undefined ||
    !deliveryModeRead ||
    predominantDeliveryMode === undefined ||
    fundingSourceNational === undefined ||
    commencingProgram === undefined ||
    isVetInSchools === undefined
  ) {
    return undefined
  }

  const uid = context.keys.subjectEnrolment(key)
  const derived = subjectLifecycleOf(
    r.raw('outcomeIdentifierNational') ?? '',
    activityStartDate,
    activityEndDate,
    context.withdrawalReason,
  )
  derived.forEach(({ state, dateField }, index) => {
    r.from(`lifecycle[${index}].studentStatus`, 'outcomeIdentifierNational')
    r.from(`lifecycle[${index}].studentActivityDate`, dateField)
    if (state.studentStatusReason) r.from(`lifecycle[${index}].studentStatusReason`, 'outcomeIdentifierNational')
  })
  r.from('subjectEnrolmentUID', 'subjectIdentifier')
  r.from('studentUID', 'clientIdentifier')
  r.from('subjectOfferingUID', 'subjectIdentifier')
  r.from('locations[0].deliveryLocationUID', 'deliveryLocationIdentifier')
  if (key.programIdentifier) r.from('programEnrolmentUID', 'programIdentifier')

  const enrolment: SubjectEnrolmentRecord = {
    subjectEnrolmentUID: uid,
    studentUID: context.keys.student(key.clientIdentifier),
    subjectOfferingUID: context.keys.subjectOffering(
      key.subjectIdentifier,
      key.programIdentifier,
      key.deliveryLocationIdentifier,
    ),
    programEnrolmentUID: key.programIdentifier
      ? context.keys.programEnrolment(key.clientIdentifier, key.programIdentifier)
      : undefined,
    activityStartDate,
    activityEndDate,
    deliveryMode: deliveryModeOf(letters),
    predominantDeliveryMode,
    locations: [{ deliveryLocationUID: context.keys.deliveryLocation(key.deliveryLocationIdentifier) }],
    scheduledHours,
    hoursAttended,
    fundingSourceNational,
    commencingProgram,
    studyReason,
    isVetInSchools,
    schoolType,
    specificFundingIdentifier,
    outcome,
    lifecycle: derived.map(({ state }) => state),
  }
  return {
    row,
    key,
    enrolment: { resourceType: 'SubjectEnrolment', uid, record: defined(enrolment), origin: origin.build() },
  }
}

/**
 * The predominant delivery mode as given, or, where the line leaves it blank (files written before
 * the field was filled in), the one mode the delivery mode letters name: YNN is internal, NNN none
 * (RPL or credit transfer). Letters naming several modes do not say which predominates: reported.
 */
function predominantModeOf(
  context: ImportContext,
  r: NatFieldReader<'NAT00120'>,
  letters: string | undefined,
): string | undefined {
  if (r.raw('predominantDeliveryMode') !== undefined) {
    return r.requiredCode(
      'predominantDeliveryMode',
      'predominant-delivery-mode',
      'predominantDeliveryMode',
      'subject enrolment',
    )
  }
  // Derived from the delivery mode letters, which are reported already when they do not read.
  if (letters === undefined) return undefined
  const modes = [...letters].flatMap((letter, index) => (letter === 'Y' ? [PREDOMINANT_OF_LETTER[index]!] : []))
  if (modes.length > 1) {
    r.problem(
      'predominantDeliveryMode',
      `Predominant delivery mode is blank and delivery mode ${letters} names more than one mode; the API requires it, so the subject enrolment is not carried`,
    )
    return undefined
  }
  const code = modes[0] ?? NONE_DELIVERED
  const word = context.codes.toApi('predominant-delivery-mode', code)
  if (word === undefined) {
    r.problem(
      'predominantDeliveryMode',
      `Predominant delivery mode ${code} (from delivery mode ${letters}) has no translation in reference dataset predominant-delivery-mode; the subject enrolment is not carried`,
    )
    return undefined
  }
  r.from('predominantDeliveryMode', 'deliveryModeIdentifier')
  return word
}

/** The outcome, always given in NAT; left out, reported, when the national outcome does not translate. */
function outcomeOf(r: NatFieldReader<'NAT00120'>): OutcomeRecord | undefined {
  const national = r.code('outcomeIdentifierNational', 'outcome-national', 'outcome.outcomeIdentifierNational')
  if (national === undefined) return undefined
  return defined({
    outcomeIdentifierNational: national,
    outcomeIdentifierTrainingOrganisation: r.text(
      'outcomeIdentifierTrainingOrganisation',
      'outcome.outcomeIdentifierTrainingOrganisation',
    ),
  })
}
