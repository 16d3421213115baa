// An assessment attempt's working copy of the period (assessment_stage, migration 0032; issue 30).
// Every rule used to derive from the bodies again which enrolments and students fall in the period and
// how each enrolment stood at the period's end, in one statement over the whole period: 2 to 3 s each at
// 100,000 records on the embedded database, where a statement holds the only connection and the
// service's thread. The attempt now copies the RTO's held records the rules read once, in slices of
// `sliceRecords` records (each slice one statement, the event loop given a turn between them), with
// those facts as columns; the rules then read the copy (rules/sql.ts), whose derived facts are plain
// columns. The copy is of one moment per slice; the run's basis (the period's latest submission at the
// claim) is what tells a reader whether its results are current, as before.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql, type RawBuilder } from 'kysely'
import type { Db, Executor } from '../../platform/db/database.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import type { AssessmentScope, StageSlice } from './assessment-rule.ts'
import { lifecycleInPeriod, statusAsAt } from './rules/sql.ts'

/** A staged record: the held record's columns the rules read, and what they derive from it. */
export interface AssessmentStageTable {
  rto_id: string
  run_id: string
  attempt: number
  resource_type: string
  uid: string
  change_tracking_identifier: string | null
  client: string
  submitted_at: Date
  jurisdiction: string
  body: unknown
  in_period: boolean
  state_at_period_end: string | null
  state_as_at: string | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    assessment_stage: AssessmentStageTable
  }
}

/** The record types assessment rules read. */
const STAGED_TYPES: readonly ResourceType[] = [
  'Student',
  'ProgramEnrolment',
  'SubjectEnrolment',
  'SubjectOffering',
  'Subject',
]

/**
 * Records per statement when the setting gives none. 2,500: at 100,000 records on a 2-core machine a
 * slice of the copy took 130 to 230 ms at 5,000, and the embedded service's p99 during the assessment
 * fell from 171 to 186 ms to 116 to 151 ms at 2,500 with no longer job (bench/results.md, fourteenth session).
 */
export const DEFAULT_SLICE_RECORDS = 2500

export type Staged = AssessmentScope & { stage: { runId: string; attempt: number } }

/**
 * Index paths only: each statement touches one slice, found through a primary key or the held records'
 * current-version index. The working copy has no statistics when it is read (it was just written), and
 * a planner guessing a small table would scan all of it, or hash it, for every slice.
 */
export async function sliceSettings(tx: Executor): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(tx)
  await sql`SET LOCAL enable_seqscan = off`.execute(tx)
  await sql`SET LOCAL enable_hashjoin = off`.execute(tx)
  await sql`SET LOCAL enable_mergejoin = off`.execute(tx)
}

async function inSlice(db: Db, statement: RawBuilder<unknown>): Promise<void> {
  // Requests that arrived during the last statement go first (the embedded database runs statements on
  // this thread; awaited one after another, they would leave it no turn to read them).
  await yieldToEventLoop()
  await db.transaction().execute(async (tx) => {
    await sliceSettings(tx)
    await statement.execute(tx)
  })
}

/**
 * The slices of a key range: the upper bound (inclusive) of each run of `size` keys after `after`, as
 * `boundAfter` finds it, until none is left (the last slice unbounded above).
 */
async function eachSlice(
  boundAfter: (after: string | null) => Promise<string | undefined>,
  slice: (after: string | null, upTo: string | undefined) => Promise<void>,
): Promise<void> {
  let after: string | null = null
  for (;;) {
    const upTo = await boundAfter(after)
    await slice(after, upTo)
    if (upTo === undefined) return
    after = upTo
  }
}

const range = (column: RawBuilder<unknown>, after: string | null, upTo: string | undefined) =>
  sql`${after === null ? sql`true` : sql`${column} > ${after}::uuid`} AND ${upTo === undefined ? sql`true` : sql`${column} <= ${upTo}::uuid`}`

const ofAttempt = (scope: Staged, alias: string) =>
  sql`${sql.ref(`${alias}.rto_id`)} = ${scope.rto} AND ${sql.ref(`${alias}.run_id`)} = ${scope.stage.runId}::uuid AND ${sql.ref(`${alias}.attempt`)} = ${scope.stage.attempt}::int`

/** The last held uid of a slice of `size` after `after` (undefined: fewer than `size` left). */
async function heldBound(db: Db, scope: Staged, type: ResourceType, after: string | null, size: number) {
  const { rows } = await sql<{ uid: string }>`
    SELECT resource_uid::text AS uid FROM held_in_submission
     WHERE rto_id = ${scope.rto} AND resource_type = ${type} AND ${range(sql`resource_uid`, after, undefined)}
     ORDER BY resource_uid OFFSET ${size - 1}::int LIMIT 1`.execute(db)
  return rows[0]?.uid
}

/** The last staged uid of a slice of `size` after `after` (undefined: fewer than `size` left). */
async function stageBound(db: Db, scope: Staged, type: ResourceType, after: string | null, size: number) {
  const { rows } = await sql<{ uid: string }>`
    SELECT s.uid::text AS uid FROM assessment_stage s
     WHERE ${ofAttempt(scope, 's')} AND s.resource_type = ${type} AND ${range(sql`s.uid`, after, undefined)}
     ORDER BY s.uid OFFSET ${size - 1}::int LIMIT 1`.execute(db)
  return rows[0]?.uid
}

/**
 * Runs `statement` for each key slice of the attempt's staged records of `type`, `sliceRecords` records
 * each (the last open above): every slice its own statement under the slices' settings (index paths
 * only), the event loop given a turn before it (assessment rules in key slices, AssessmentRule.sliced).
 */
export async function forEachStagedSlice(
  db: Db,
  scope: Staged,
  type: ResourceType,
  sliceRecords: number,
  statement: (slice: StageSlice) => RawBuilder<unknown>,
): Promise<void> {
  await eachSlice(
    (after) => stageBound(db, scope, type, after, sliceRecords),
    (after, upTo) => inSlice(db, statement({ after, upTo })),
  )
}

/**
 * Copies the RTO's held records the rules read into the attempt's working copy, with what the rules
 * derive from them: which enrolments and students are in the period (rules/sql.ts's definitions, to the
 * letter) and each enrolment's state at the period's end and on the as-at day.
 */
export async function stagePeriod(db: Db, scope: Staged, sliceRecords: number): Promise<void> {
  for (const type of STAGED_TYPES) {
    const enrolment = type === 'SubjectEnrolment' || type === 'ProgramEnrolment'
    // A subject enrolment is in the period by its lifecycle or its training dates; a program enrolment
    // by its lifecycle here, and by a subject enrolment of it in the period below; a student below.
    const inPeriod =
      type === 'SubjectEnrolment'
        ? sql`h.jurisdiction = ${scope.jurisdiction}
              AND (${lifecycleInPeriod(scope, 'h')}
                   OR (h.body->>'activityStartDate' <= ${scope.periodEnd} AND h.body->>'activityEndDate' >= ${scope.periodStart}))`
        : type === 'ProgramEnrolment'
          ? sql`h.jurisdiction = ${scope.jurisdiction} AND ${lifecycleInPeriod(scope, 'h')}`
          : sql`false`
    await eachSlice(
      (after) => heldBound(db, scope, type, after, sliceRecords),
      (after, upTo) =>
        inSlice(
          db,
          sql`
          INSERT INTO assessment_stage (rto_id, run_id, attempt, resource_type, uid, change_tracking_identifier, client, submitted_at, jurisdiction, body,
                                        in_period, state_at_period_end, state_as_at)
          SELECT h.rto_id, ${scope.stage.runId}::uuid, ${scope.stage.attempt}::int, h.resource_type, h.resource_uid,
                 h.change_tracking_identifier, h.submitted_by_client, h.submitted_at, h.jurisdiction, h.body,
                 coalesce(${inPeriod}, false),
                 ${enrolment ? statusAsAt('h', scope.periodEnd) : sql`NULL`},
                 ${enrolment ? statusAsAt('h', scope.asAt) : sql`NULL`}
            FROM held_in_submission h
           WHERE h.rto_id = ${scope.rto} AND h.resource_type = ${type} AND ${range(sql`h.resource_uid`, after, upTo)}`,
        ),
    )
  }
  // Program enrolments under the jurisdiction with a subject enrolment of theirs in the period.
  await eachSlice(
    (after) => stageBound(db, scope, 'SubjectEnrolment', after, sliceRecords),
    (after, upTo) =>
      markInPeriod(
        db,
        scope,
        'ProgramEnrolment',
        sql`SELECT DISTINCT se.body->>'programEnrolmentUID' AS uid FROM assessment_stage se
             WHERE ${ofAttempt(scope, 'se')} AND se.resource_type = 'SubjectEnrolment' AND ${range(sql`se.uid`, after, upTo)}
               AND se.in_period AND se.body->>'programEnrolmentUID' IS NOT NULL`,
      ),
  )
  // Students with an enrolment (subject or program) in the period.
  for (const type of ['SubjectEnrolment', 'ProgramEnrolment'] as const) {
    await eachSlice(
      (after) => stageBound(db, scope, type, after, sliceRecords),
      (after, upTo) =>
        markInPeriod(
          db,
          scope,
          'Student',
          sql`SELECT DISTINCT e.body->>'studentUID' AS uid FROM assessment_stage e
               WHERE ${ofAttempt(scope, 'e')} AND e.resource_type = ${type} AND ${range(sql`e.uid`, after, upTo)}
                 AND e.in_period AND e.body->>'studentUID' IS NOT NULL`,
        ),
    )
  }
}

/**
 * Marks in the period the staged records of `type` whose uids one slice names (`targets`: a statement
 * giving uid as text). The uids are read first and then given as a list, so the update is look-ups by
 * primary key whatever the planner would guess of a join with the copy (a join planned without
 * statistics took 155 s for one slice of 5,000 at 20,000 records). A program enrolment counts only under
 * the assessment's jurisdiction (programEnrolmentsInPeriod).
 */
async function markInPeriod(db: Db, scope: Staged, type: ResourceType, targets: RawBuilder<unknown>): Promise<void> {
  await yieldToEventLoop()
  const { rows } = await db.transaction().execute(async (tx) => {
    await sliceSettings(tx)
    return sql<{ uid: string }>`${targets}`.execute(tx)
  })
  if (rows.length === 0) return
  const uids = `{${rows.map((row) => row.uid).join(',')}}`
  await inSlice(
    db,
    sql`UPDATE assessment_stage t SET in_period = true
         WHERE ${ofAttempt(scope, 't')} AND t.resource_type = ${type} AND t.uid = ANY(${uids}::uuid[]) AND NOT t.in_period
           ${type === 'ProgramEnrolment' ? sql`AND t.jurisdiction = ${scope.jurisdiction}` : sql``}`,
  )
}

/**
 * Deletes working copies, `sliceRecords` rows per statement: the attempt's own (`attempt`), or every
 * other attempt's of the run (`otherThan`: attempts that died or were superseded).
 */
export async function dropStage(
  db: Db,
  rto: string,
  runId: string,
  which: { attempt: number } | { otherThan: number },
  sliceRecords: number,
): Promise<void> {
  const attempts =
    'attempt' in which ? sql`s.attempt = ${which.attempt}::int` : sql`s.attempt <> ${which.otherThan}::int`
  for (;;) {
    await yieldToEventLoop()
    const deleted = await db.transaction().execute(async (tx) => {
      await sliceSettings(tx)
      const result = await sql`
        DELETE FROM assessment_stage d
         WHERE (d.rto_id, d.run_id, d.attempt, d.resource_type, d.uid) IN (
               SELECT s.rto_id, s.run_id, s.attempt, s.resource_type, s.uid FROM assessment_stage s
                WHERE s.rto_id = ${rto} AND s.run_id = ${runId}::uuid AND ${attempts}
                LIMIT ${sliceRecords}::int)`.execute(tx)
      return Number(result.numAffectedRows ?? 0)
    })
    if (deleted < sliceRecords) return
  }
}
