// Program enrolments from the NAT00120 lines of a client in a program, with the client's NAT00130
// completion of it. NAT has no program enrolment record: one exists for each client and program that
// has activity, and its facts are those of its activity.
import type { NatRecord } from '../../records.ts'
import { programLifecycleOf } from '../lifecycle.ts'
import type { MappedRecordOf } from '../mapped-record.ts'
import { defined } from '../objects.ts'
import { OriginBuilder } from '../origin.ts'
import type { ProgramCompletionRecord, ProgramEnrolmentRecord } from '../resource-records.ts'
import { checkOrganisation, type ImportContext, report } from './context.ts'
import { NatFieldReader } from './field-reader.ts'
import { allByKey, firstByKey } from './grouping.ts'
import type { Activity } from './subject-enrolments.ts'

/** Commencing program identifier 8: a subject enrolment outside any program, so no program's answer. */
const SUBJECT_ENROLMENT_ONLY = '8'

const enrolmentKey = (client: string, program: string) => `${client}\u0000${program}`

/** Earliest activity first; the file's order among activities that start the same day. */
const byStart = (a: Activity, b: Activity) =>
  a.key.activityStartDate < b.key.activityStartDate
    ? -1
    : a.key.activityStartDate > b.key.activityStartDate
      ? 1
      : a.row.line - b.row.line

export function programEnrolmentsFrom(
  context: ImportContext,
  activities: readonly Activity[],
  completionRows: readonly NatRecord<'NAT00130'>[],
): MappedRecordOf<'ProgramEnrolment'>[] {
  const byEnrolment = allByKey(
    activities.filter((activity) => activity.key.programIdentifier !== ''),
    (activity) => enrolmentKey(activity.key.clientIdentifier, activity.key.programIdentifier),
  )
  const completions = completionsByEnrolment(context, completionRows, byEnrolment)

  const mapped: MappedRecordOf<'ProgramEnrolment'>[] = []
  for (const [key, inProgram] of byEnrolment) {
    const enrolment = programEnrolmentFrom(context, inProgram.sort(byStart), completions.get(key))
    if (enrolment) mapped.push(enrolment)
  }
  return mapped
}

/**
 * NAT00130 lines by client and program. The API holds one completion per program enrolment, so a
 * second completion of the same program by the same client is reported and not carried, and so is a
 * completion without activity in the program: a program enrolment needs at least one subject
 * enrolment (spec: Enrolment lifecycle), and its commencement and funding come from them.
 */
function completionsByEnrolment(
  context: ImportContext,
  rows: readonly NatRecord<'NAT00130'>[],
  withActivity: ReadonlyMap<string, unknown>,
): Map<string, NatRecord<'NAT00130'>> {
  for (const row of rows) checkOrganisation(context, row)
  const completions = firstByKey(
    context,
    rows,
    (row) => enrolmentKey(row.values.clientIdentifier ?? '', row.values.programIdentifier ?? ''),
    (key) => `A completion of program ${key.split('\u0000')[1]} by client ${key.split('\u0000')[0]}`,
  )
  for (const [key, row] of completions) {
    if (withActivity.has(key)) continue
    // An activity line of the enrolment that could not be read is the cause, not the completion.
    const unread = (context.unreadable?.lines.NAT00120 ?? []).find(
      (line) =>
        line.values.clientIdentifier === row.values.clientIdentifier &&
        line.values.programIdentifier === row.values.programIdentifier,
    )
    if (unread) {
      report(
        context,
        row,
        'programIdentifier',
        `Line ${unread.line} of NAT00120 (client ${row.values.clientIdentifier} in program ${row.values.programIdentifier}) could not be read, so the completion has no subject enrolment to belong to and is not carried`,
        `Correct line ${unread.line} of NAT00120 (${unread.file}) as its own problems say; the completion then reads with it.`,
      )
    } else {
      report(
        context,
        row,
        'programIdentifier',
        `Client ${row.values.clientIdentifier} has no NAT00120 activity in program ${row.values.programIdentifier}: a program enrolment needs a subject enrolment, so the completion is not carried`,
        `In the SMS, include the activity of client ${row.values.clientIdentifier} in program ${row.values.programIdentifier} in the NAT00120 export, or leave the completion out until it is reported.`,
      )
    }
    completions.delete(key)
  }
  return completions
}

function programEnrolmentFrom(
  context: ImportContext,
  activities: readonly Activity[],
  completionRow: NatRecord<'NAT00130'> | undefined,
): MappedRecordOf<'ProgramEnrolment'> | undefined {
  const first = activities[0]!
  const { clientIdentifier, programIdentifier } = first.key
  const origin = new OriginBuilder(first.row)
  for (const activity of activities.slice(1)) origin.append(activity.row)
  const uid = context.keys.programEnrolment(clientIdentifier, programIdentifier)
  origin.field('programEnrolmentUID', first.row, 'programIdentifier')
  origin.field('studentUID', first.row, 'clientIdentifier')
  origin.field('programOfferingUID', first.row, 'programIdentifier')
  origin.field('commencementDate', first.row, 'activityStartDate')

  // Commencing or continuing, funding and study reason are the program's as its earliest activity
  // in it reports them; a later subject's own answers stay on that subject enrolment.
  const answering = activities.find(
    (activity) => activity.row.values.commencingProgramIdentifier !== SUBJECT_ENROLMENT_ONLY,
  )
  if (!answering) {
    report(
      context,
      first.row,
      'commencingProgramIdentifier',
      `Every activity of client ${clientIdentifier} in program ${programIdentifier} says ${SUBJECT_ENROLMENT_ONLY} (subject enrolment only); a program enrolment must be commencing or continuing, so it is not carried`,
    )
    return undefined
  }
  const facts = answering.enrolment.record
  origin.field('commencingProgram', answering.row, 'commencingProgramIdentifier')
  origin.field('fundingSourceNational', answering.row, 'fundingSourceNational')
  if (facts.studyReason !== undefined) origin.field('studyReason', answering.row, 'studyReasonIdentifier')

  const programCompletion = completionRow ? completionOf(context, completionRow, origin) : undefined
  const lifecycle = programLifecycleOf(
    activities.map((activity) => activity.enrolment.record),
    programCompletion !== undefined,
  )
  lifecycle.forEach(({ state, subject }, index) => {
    const row = activities[subject]!.row
    origin.field(`lifecycle[${index}].studentStatus`, row, 'outcomeIdentifierNational')
    origin.field(
      `lifecycle[${index}].studentActivityDate`,
      row,
      state.studentStatus === 'Cancelled' ? 'activityEndDate' : 'activityStartDate',
    )
    if (state.studentStatusReason)
      origin.field(`lifecycle[${index}].studentStatusReason`, row, 'outcomeIdentifierNational')
  })

  const enrolment: ProgramEnrolmentRecord = {
    programEnrolmentUID: uid,
    studentUID: context.keys.student(clientIdentifier),
    programOfferingUID: context.keys.programOffering(programIdentifier),
    commencementDate: first.key.activityStartDate,
    commencingProgram: facts.commencingProgram,
    studyReason: facts.studyReason,
    fundingSourceNational: facts.fundingSourceNational,
    ...apprenticeshipOf(context, activities, origin),
    programCompletion,
    lifecycle: lifecycle.map(({ state }) => state),
  }
  return { resourceType: 'ProgramEnrolment', uid, record: defined(enrolment), origin: origin.build() }
}

/**
 * The training contract and apprenticeship client identifiers are the program enrolment's in the API
 * but each activity's in NAT: the first activity that states one gives it, and an activity stating
 * another is reported, since only one can be carried.
 */
function apprenticeshipOf(
  context: ImportContext,
  activities: readonly Activity[],
  origin: OriginBuilder,
): Pick<ProgramEnrolmentRecord, 'trainingContractIdentifier' | 'apprenticeshipClientIdentifier'> {
  const result: Pick<ProgramEnrolmentRecord, 'trainingContractIdentifier' | 'apprenticeshipClientIdentifier'> = {}
  for (const [natField, apiField] of [
    ['trainingContractIdentifier', 'trainingContractIdentifier'],
    ['clientIdentifierApprenticeships', 'apprenticeshipClientIdentifier'],
  ] as const) {
    let chosen: Activity | undefined
    for (const activity of activities) {
      const value = activity.row.values[natField]
      if (value === undefined) continue
      if (!chosen) {
        chosen = activity
        result[apiField] = value
        origin.field(apiField, activity.row, natField)
      } else if (value !== result[apiField]) {
        report(
          context,
          activity.row,
          natField,
          `The program enrolment holds one ${natField === 'trainingContractIdentifier' ? 'training contract identifier' : 'apprenticeship client identifier'}, ${result[apiField]} from line ${chosen.row.line}; this line's is not carried`,
        )
      }
    }
  }
  return result
}

/** NAT00130's completion, or undefined (reported) when its date is not stated or its issued flag is not Y or N. */
function completionOf(
  context: ImportContext,
  row: NatRecord<'NAT00130'>,
  origin: OriginBuilder,
): ProgramCompletionRecord | undefined {
  const r = new NatFieldReader(context, row, origin)
  const isParchmentIssued = r.requiredFlag('issuedFlag', 'programCompletion.isParchmentIssued', 'program completion')
  const dateProgramCompleted = r.date('dateProgramCompleted', 'programCompletion.dateProgramCompleted')
  if (dateProgramCompleted === undefined) {
    r.problem(
      'dateProgramCompleted',
      'Date program completed must be stated: the API requires it, so the completion is not carried',
    )
  }
  if (isParchmentIssued === undefined || dateProgramCompleted === undefined) return undefined
  return defined({
    dateProgramCompleted,
    isParchmentIssued,
    parchmentIssueDate: r.date('parchmentIssueDate', 'programCompletion.parchmentIssueDate'),
    parchmentNumber: r.text('parchmentNumber', 'programCompletion.parchmentNumber'),
  })
}
