// SQL building blocks the assessment rules share. An assessment reads the current held version of
// each record in submission (voided ones are out of the dataset). Enrolments are those reported under
// the assessment's jurisdiction; the records they refer to (students, subjects, offerings, locations)
// are looked up across the RTO's held data, whichever batch jurisdiction carried them.
// Values reach the database as parameters; only the code's own aliases are spliced in.
// Cross-module read, on purpose: assessment rules (and declarations' nil-activity check, which uses
// these blocks) read what holdings publishes for it (the view held_in_submission, never its table),
// one query period-wide, where going through
// holdings would mean reading the held dataset record by record (docs/decisions.md, "Architecture:
// shared kernel and module boundaries").
import { sql, type RawBuilder } from 'kysely'
import type { ResourceType } from '../../../domain/resource-types.ts'
import type { AssessmentScope, StageSlice } from '../assessment-rule.ts'

/**
 * Current held records of a type in submission: uid, ctid, body, client, submitted_at, jurisdiction.
 * Staged (an assessment's attempt), the attempt's working copy of them, which adds in_period,
 * state_at_period_end and state_as_at (assessment.stage.ts).
 */
export function held(scope: AssessmentScope, type: ResourceType, slice?: StageSlice): RawBuilder<unknown> {
  if (scope.stage)
    return sql`(SELECT uid, change_tracking_identifier AS ctid, body, client, submitted_at, jurisdiction, in_period,
           state_at_period_end, state_as_at
      FROM assessment_stage
     WHERE rto_id = ${scope.rto} AND run_id = ${scope.stage.runId}::uuid AND attempt = ${scope.stage.attempt}::int
       AND resource_type = ${type} AND ${inStageSlice(slice)})`
  return sql`(SELECT resource_uid AS uid, change_tracking_identifier AS ctid, body, submitted_by_client AS client, submitted_at, jurisdiction
      FROM held_in_submission
     WHERE rto_id = ${scope.rto} AND resource_type = ${type})`
}

/** Whether a staged record's uid is in the slice (true without one). */
function inStageSlice(slice: StageSlice | undefined): RawBuilder<boolean> {
  const after = slice?.after == null ? sql`true` : sql`uid > ${slice.after}::uuid`
  const upTo = slice?.upTo === undefined ? sql`true` : sql`uid <= ${slice.upTo}::uuid`
  return sql<boolean>`${after} AND ${upTo}`
}

/**
 * `JOIN` of the current held record of a type aliased `alias` whose uid is `uid` (an expression over the
 * rows joined before it). Over a key slice (a working copy) it is a lookup by key for each row of the
 * slice: a LATERAL subquery that OFFSET 0 keeps from being pulled up into a plain join. Pulled up, the
 * planner, with no statistics on the copy it had just written, guessed one row on each side and scanned
 * every record of the type for each record of the slice, the key left a join filter: the sixth
 * session's slices of 5,000 took up to 676 s where the whole rule took 2.6 (docs/decisions.md). Without
 * a slice, a plain join (hashed: ruleSessionSettings).
 */
export function joinHeldByUid(
  scope: AssessmentScope,
  type: ResourceType,
  alias: string,
  uid: RawBuilder<unknown>,
  slice: StageSlice | undefined,
): RawBuilder<unknown> {
  const ref = sql.ref(`${alias}.uid`)
  if (!slice) return sql`JOIN ${held(scope, type)} AS ${sql.id(alias)} ON ${ref} = ${uid}`
  return sql`CROSS JOIN LATERAL (SELECT h.* FROM ${held(scope, type)} AS h WHERE h.uid = ${uid} OFFSET 0) AS ${sql.id(alias)}`
}

/** Whether any lifecycle state of the record aliased `alias` is dated within the period. */
export function lifecycleInPeriod(scope: AssessmentScope, alias: string): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (
    SELECT 1 FROM jsonb_array_elements(${sql.raw(alias)}.body->'lifecycle') AS l(value)
     WHERE l.value->>'studentActivityDate' BETWEEN ${scope.periodStart} AND ${scope.periodEnd})`
}

/**
 * Subject enrolments of the period under the jurisdiction: a lifecycle state dated in the period, or
 * training (activityStartDate to activityEndDate) overlapping it.
 */
export function subjectEnrolmentsInPeriod(scope: AssessmentScope, slice?: StageSlice): RawBuilder<unknown> {
  if (scope.stage) return sql`(SELECT se.* FROM ${held(scope, 'SubjectEnrolment', slice)} AS se WHERE se.in_period)`
  if (slice) throw new Error('key slices are of a working copy (scope.stage)')
  return sql`(SELECT se.* FROM ${held(scope, 'SubjectEnrolment')} AS se
     WHERE se.jurisdiction = ${scope.jurisdiction}
       AND (${lifecycleInPeriod(scope, 'se')}
            OR (se.body->>'activityStartDate' <= ${scope.periodEnd} AND se.body->>'activityEndDate' >= ${scope.periodStart})))`
}

/** Program enrolments of the period under the jurisdiction: a lifecycle state dated in it, or a subject enrolment of it in the period. */
export function programEnrolmentsInPeriod(scope: AssessmentScope): RawBuilder<unknown> {
  if (scope.stage) return sql`(SELECT pe.* FROM ${held(scope, 'ProgramEnrolment')} AS pe WHERE pe.in_period)`
  return sql`(SELECT pe.* FROM ${held(scope, 'ProgramEnrolment')} AS pe
     WHERE pe.jurisdiction = ${scope.jurisdiction}
       AND (${lifecycleInPeriod(scope, 'pe')}
            OR pe.uid IN (SELECT (s.body->>'programEnrolmentUID')::uuid FROM ${subjectEnrolmentsInPeriod(scope)} AS s
                           WHERE s.body->>'programEnrolmentUID' IS NOT NULL)))`
}

/** Students with an enrolment (subject or program) in the period under the jurisdiction. */
export function studentsInPeriod(scope: AssessmentScope): RawBuilder<unknown> {
  if (scope.stage) return sql`(SELECT st.* FROM ${held(scope, 'Student')} AS st WHERE st.in_period)`
  return sql`(SELECT st.* FROM ${held(scope, 'Student')} AS st
     WHERE st.uid IN (SELECT (e.body->>'studentUID')::uuid FROM ${subjectEnrolmentsInPeriod(scope)} AS e
                      UNION SELECT (e.body->>'studentUID')::uuid FROM ${programEnrolmentsInPeriod(scope)} AS e))`
}

/** The enrolment's state as it stood on a day: the latest lifecycle entry dated on or before it. */
export function statusAsAt(alias: string, date: string): RawBuilder<string> {
  return sql<string>`(
    SELECT l.value->>'studentStatus'
      FROM jsonb_array_elements(${sql.raw(alias)}.body->'lifecycle') WITH ORDINALITY AS l(value, n)
     WHERE l.value->>'studentActivityDate' <= ${date}
     ORDER BY l.value->>'studentActivityDate' DESC, l.n DESC
     LIMIT 1)`
}

/**
 * The enrolment (aliased `alias`) state as it stood at the period's end or on the assessment's as-at
 * day: staged, the column the working copy computed once; otherwise statusAsAt.
 */
export function stateAt(scope: AssessmentScope, alias: string, day: 'periodEnd' | 'asAt'): RawBuilder<string> {
  if (scope.stage)
    return sql<string>`${sql.ref(`${alias}.${day === 'periodEnd' ? 'state_at_period_end' : 'state_as_at'}`)}`
  return statusAsAt(alias, scope[day])
}

/** Outcomes that show the subject was achieved (AVETMISS outcome 20, 51, 60, 81). */
export const SUCCESSFUL_OUTCOMES = [
  'Competency_achieved',
  'RPL_granted',
  'Credit_transfer',
  'Non_assessable_satisfactorily_completed',
] as const
