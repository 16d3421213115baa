// Enrolment lifecycles from NAT activity, and back. AVETMISS has one code per activity, the outcome
// identifier - national; the API splits it into the outcome and a lifecycle of dated states
// (domain notes). NAT has no lifecycle, so it is derived from the outcome and the activity dates,
// the same way on every import; docs/decisions.md, "NAT bridge: mapping", gives the table.
import type { LifecycleStateRecord } from './resource-records.ts'

/** The AVETMISS outcomes (outcome identifier - national) that say something about the lifecycle. */
export const WITHDRAWN = '40'
export const NOT_YET_STARTED = '85'
/** What an enrolment that has commenced and has no final result is reported as. */
export const CONTINUING = '70'

export type ActivityDateField = 'activityStartDate' | 'activityEndDate'

/** A derived state, and which activity date it is dated by. */
export interface DerivedSubjectState {
  state: LifecycleStateRecord
  dateField: ActivityDateField
}

/**
 * A subject enrolment's lifecycle from its NAT00120 outcome and dates:
 * - 85 not yet started: Registered on the start date (training has not begun);
 * - 40 withdrawn: Commenced on the start date, then Cancelled on the end date (AVETMISS reports the
 *   withdrawal date as the activity end date), with `withdrawalReason`;
 * - any other outcome (continuing, a result, RPL, credit transfer, RTO closure): Commenced on the
 *   start date. A result is not a lifecycle state: it stays in `outcome`.
 */
export function subjectLifecycleOf(
  outcome: string,
  activityStartDate: string,
  activityEndDate: string,
  withdrawalReason: string,
): DerivedSubjectState[] {
  if (outcome === NOT_YET_STARTED) {
    return [
      {
        state: { studentStatus: 'Registered', studentActivityDate: activityStartDate },
        dateField: 'activityStartDate',
      },
    ]
  }
  const commenced: DerivedSubjectState = {
    state: { studentStatus: 'Commenced', studentActivityDate: activityStartDate },
    dateField: 'activityStartDate',
  }
  if (outcome !== WITHDRAWN) return [commenced]
  return [
    commenced,
    {
      state: {
        studentStatus: 'Cancelled',
        studentActivityDate: activityEndDate,
        studentStatusReason: withdrawalReason,
      },
      dateField: 'activityEndDate',
    },
  ]
}

/** The state in force: the latest by date, the later in the list on the same date. */
export function latestState(lifecycle: readonly LifecycleStateRecord[]): LifecycleStateRecord | undefined {
  let latest: LifecycleStateRecord | undefined
  for (const state of lifecycle) if (!latest || state.studentActivityDate >= latest.studentActivityDate) latest = state
  return latest
}

/** What the program lifecycle is derived from: the subject enrolments counting towards it. */
export interface SubjectOfProgram {
  activityStartDate: string
  lifecycle: readonly LifecycleStateRecord[]
}

/** A derived program state, and the subject enrolment (index) whose state or date it follows. */
export interface DerivedProgramState {
  state: LifecycleStateRecord
  subject: number
}

/**
 * A program enrolment's lifecycle from its subject enrolments:
 * - Commenced on the earliest date a subject commenced, or, when none has, Registered on the
 *   earliest activity start date;
 * - then Cancelled when the program is not completed and every subject is Cancelled (withdrawn from
 *   all of them): on the latest of their cancellation dates, with that cancellation's reason.
 * NAT has no deferral, so Deferred is never derived.
 */
export function programLifecycleOf(subjects: readonly SubjectOfProgram[], completed: boolean): DerivedProgramState[] {
  if (subjects.length === 0) return []
  let commenced: { date: string; subject: number } | undefined
  let earliest = 0
  subjects.forEach((subject, index) => {
    if (subject.activityStartDate < subjects[earliest]!.activityStartDate) earliest = index
    for (const state of subject.lifecycle) {
      if (state.studentStatus !== 'Commenced') continue
      if (!commenced || state.studentActivityDate < commenced.date)
        commenced = { date: state.studentActivityDate, subject: index }
    }
  })
  const states: DerivedProgramState[] = commenced
    ? [{ state: { studentStatus: 'Commenced', studentActivityDate: commenced.date }, subject: commenced.subject }]
    : [
        {
          state: { studentStatus: 'Registered', studentActivityDate: subjects[earliest]!.activityStartDate },
          subject: earliest,
        },
      ]
  if (completed) return states

  let cancelled: { state: LifecycleStateRecord; subject: number } | undefined
  for (const [index, subject] of subjects.entries()) {
    const latest = latestState(subject.lifecycle)
    if (latest?.studentStatus !== 'Cancelled') return states
    if (!cancelled || latest.studentActivityDate > cancelled.state.studentActivityDate)
      cancelled = { state: latest, subject: index }
  }
  if (cancelled) states.push({ state: { ...cancelled.state }, subject: cancelled.subject })
  return states
}

/**
 * The AVETMISS outcome of a subject enrolment that has no `outcome` (written to NAT00120, where the
 * outcome is required), from the state in force: Cancelled is withdrawn (40), Commenced continuing
 * (70), Registered (or anything before commencement) not yet started (85).
 */
export function outcomeFromLifecycle(lifecycle: readonly LifecycleStateRecord[]): string {
  switch (latestState(lifecycle)?.studentStatus) {
    case 'Cancelled':
      return WITHDRAWN
    case 'Commenced':
      return CONTINUING
    default:
      return NOT_YET_STARTED
  }
}
