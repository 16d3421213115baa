// The lifecycle of a background run (a batch validation, a data quality assessment): one run table and
// one result table, driven through the queue. One factory, parameterised by the tables, the columns
// naming what a run is of, and the status names, so both kinds of run behave, and recover, the same.
//
// What it must survive. Delivery is at least once: a job may be handed to a worker more than once (a
// retry, a redelivery whose acknowledgement was lost, a worker presumed dead because its heartbeats
// stopped while it was in fact still running). And a worker may die mid-run (killed, crashed, the
// machine lost), leaving part of its results written; its heartbeats stop and the queue delivers the
// job again after about the heartbeat plus the supervise interval.
//
// Runs. One row per request, keyed (rto_id, run_id): Queued -> InProgress -> completed, or Cancelled
// (a client's DELETE, or superseded by a newer request) from Queued or InProgress, or Fault (a
// technical error) from InProgress where the table has a fault status. Completed, Cancelled and Fault
// are final. The services keep at most one Queued or InProgress run per subject (a batch; a
// jurisdiction and period), which the discarding on completion below relies on.
//
// Claim. One UPDATE takes a Queued or InProgress run to InProgress, adds 1 to its attempt and records
// the basis the attempt computes from (the batch's fingerprint; the period's latest submission). The
// row lock the UPDATE takes orders concurrent claims: each gets its own attempt number and the last
// is the live one. A run already final is not claimed (undefined): a job delivered again after its run
// completed, was cancelled or faulted does nothing. An InProgress run is claimed again on purpose: a
// delivery after a crash must be able to take the run over, so the new claim supersedes the old attempt.
//
// Attempt. The run's attempt number at claim is the attempt's identity; every result row carries it.
// An attempt is live while its run is InProgress with that number. Cancelling, a newer claim or a
// fault ends it; an attempt never becomes live again.
//
// Results of a dead attempt are discarded three ways: the new attempt deletes every other attempt's
// results of its run right after its claim (deleteOtherAttempts); an attempt that finds at a checkpoint
// between its steps that it is no longer live deletes its own (deleteAttempt) and stops; and readers
// only ever read the results of a completed run's own attempt, so rows a stale attempt writes before
// it notices are never read (and go when a later run of the subject completes, or with the run).
//
// Complete. One UPDATE, conditional on the attempt still being live (InProgress with this attempt
// number), sets the completed status and the indicators (blocking, non-blocking, count, the results
// counted per rule, and the key of every RESULT_ANCHOR_EVERY-th result for deep pages) from this
// attempt's results only, in the same statement. When the attempt is no longer live nothing changes
// and the caller discards its results. After it, the results of the subject's other runs are deleted:
// only the latest completed run is read. The two statements are separate: a worker that dies between
// them leaves older results that no reader picks and that the next completion deletes.
//
// Fault (tables with a fault status). The live attempt's run goes to Fault, conditional like
// complete, and that attempt's results are deleted; the job is not retried (the same data fails the
// same way) and a new request retries. Without a fault status (validation) a technical error fails the
// job, the queue retries it as a new attempt, and a new request supersedes a run left InProgress.
//
// What a client observes: Queued until a worker claims the run; InProgress through every attempt (a
// retry after a crash stays InProgress, with started_at of the new attempt); then the completed
// status with indicators and results of exactly one attempt, never partial or duplicated; Cancelled
// or Fault with no results of that run kept. The previous completed run's results stay readable until
// a newer run completes. A job delivered again after any final status changes nothing.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { sql, type RawBuilder, type Selectable } from 'kysely'
import type { Executor } from '../db/database.ts'
import type { Database } from '../db/schema.ts'
import { messageLevels } from '../../domain/rules.ts'

type Row<T extends keyof Database> = Selectable<Database[T]>

/** The columns the lifecycle reads and writes on a run table. */
interface RunColumns {
  rto_id: string
  run_id: string
  status: string
  attempt: number
  started_at: Date | null
  completed_at: Date | null
  has_blocking_failures: boolean | null
  has_non_blocking_failures: boolean | null
  result_count: number | null
  /** RuleCount[] as JSON, set on completion; null before, and for runs completed before it was kept. */
  results_by_rule: unknown
}

/**
 * A completed run keeps the seq of every this-many-th of its results in seq order (result_anchors:
 * positions 0, 1000, 2000, ...), so a deep page starts from the nearest kept key instead of counting
 * through every result before it (resultPageStart).
 */
export const RESULT_ANCHOR_EVERY = 1000

/**
 * Where a page at `offset` of a run's results (unfiltered, in seq order) starts: at or after the kept
 * key `seq`, `skip` results further on (fewer than RESULT_ANCHOR_EVERY). Undefined when the run keeps
 * no keys (completed before they were kept) or the offset is past its last kept key's span.
 */
export function resultPageStart(anchors: unknown, offset: number): { seq: string; skip: number } | undefined {
  if (!Array.isArray(anchors) || offset < 0) return undefined
  const index = Math.floor(offset / RESULT_ANCHOR_EVERY)
  const seq = anchors[index] as string | number | bigint | null | undefined
  if (seq === undefined || seq === null) return undefined
  return { seq: String(seq), skip: offset - index * RESULT_ANCHOR_EVERY }
}

/** A completed run's results of one rule: how many, and what every result of the rule shares. */
export interface RuleCount {
  technicalRuleId: string
  ruleId: string
  level: string
  correctiveAction: string
  /** The resource types of the rule's results, sorted. */
  resourceTypes: string[]
  results: number
}

/** The columns the lifecycle reads on a result table: each row belongs to one attempt of one run. */
interface ResultColumns {
  rto_id: string
  run_id: string
  attempt: number
}

/** Tables of the database with a run table's columns. */
export type RunTableName = {
  [T in keyof Database]: Row<T> extends RunColumns ? T : never
}[keyof Database] &
  string

/** Tables of the database with a result table's columns. */
export type ResultTableName = {
  [T in keyof Database]: Row<T> extends ResultColumns ? T : never
}[keyof Database] &
  string

type Status<R extends RunTableName> = Row<R> extends { status: infer S } ? S : never
type StringColumn<T extends keyof Database> = {
  [C in keyof Row<T>]: Row<T>[C] extends string ? C : never
}[keyof Row<T>] &
  string

export interface RunLifecycleSpec<R extends RunTableName, X extends ResultTableName> {
  runTable: R
  resultTable: X
  /** What a run is of (a batch; a jurisdiction and period): a completed run discards the results of the subject's other runs. */
  subjectColumns: readonly (keyof Row<R> & string)[]
  statuses: {
    queued: Status<R>
    inProgress: Status<R>
    completed: Status<R>
    cancelled: Status<R>
    fault?: Status<R>
  }
  /** The result column holding a result's level; `blockingLevel` there is a blocking result, any other level not. */
  levelColumn: StringColumn<X>
  blockingLevel: string
  /**
   * What an attempt computes from, recorded on the run as it is claimed: `set` assigns the run's
   * basis columns, from tables in `from` joined by `where`. SQL fragments over the run, aliased r.
   */
  basis: { set: RawBuilder<unknown>; from?: RawBuilder<unknown>; where?: RawBuilder<unknown> }
}

export interface RunLifecycle<R extends RunTableName> {
  /**
   * Takes the run up for a new attempt: InProgress, attempt + 1, started now, its basis recorded. The
   * run as claimed, whose `attempt` is the new attempt's; undefined when the run is final (or, for a
   * basis read from another table, that row is gone).
   */
  claim(db: Executor, rto: string, runId: string): Promise<Row<R> | undefined>
  /** Whether the attempt is still the run's live one (not cancelled, superseded, faulted or completed). */
  isLive(db: Executor, rto: string, runId: string, attempt: number): Promise<boolean>
  /**
   * Between two steps of an attempt: whether it is still live, and if so a turn of the event loop
   * (the embedded database answers without I/O, so a long run would otherwise hold every request).
   */
  checkpoint(db: Executor, rto: string, runId: string, attempt: number): Promise<boolean>
  /** Deletes what the run's other attempts wrote (a worker that died part-way, or one superseded). */
  deleteOtherAttempts(db: Executor, rto: string, runId: string, attempt: number): Promise<void>
  /** Deletes what this attempt wrote: an attempt no longer live discards its results. */
  deleteAttempt(db: Executor, rto: string, runId: string, attempt: number): Promise<void>
  /**
   * Marks the run completed with indicators from this attempt's results, if the attempt is still
   * live; then deletes the results of the subject's other runs. False, changing nothing, otherwise.
   */
  complete(db: Executor, rto: string, runId: string, attempt: number): Promise<boolean>
  /** Cancels those of the runs that are Queued or InProgress; a running attempt stops at its next checkpoint. */
  cancel(db: Executor, rto: string, runIds: readonly string[]): Promise<void>
  /**
   * A completed run's results counted per rule, in the order the rules first produced them: kept by
   * complete, or counted now for a run completed before they were kept.
   */
  resultsByRule(
    db: Executor,
    run: Pick<RunColumns, 'rto_id' | 'run_id' | 'attempt' | 'results_by_rule'>,
  ): Promise<RuleCount[]>
  /** A run just completed, for its event: its indicators and its results counted by level (from the counts per rule complete kept). */
  completedOutcome(db: Executor, rto: string, runId: string): Promise<RunOutcome>
}

/** What a completed run found, told in its event. */
export interface RunOutcome {
  hasBlocking: boolean
  hasNonBlocking: boolean
  resultsByLevel: Record<string, number>
}

export interface FaultingRunLifecycle<R extends RunTableName> extends RunLifecycle<R> {
  /** Marks the run Fault if the attempt is still live (true when it did), and deletes the attempt's results. */
  fault(db: Executor, rto: string, runId: string, attempt: number): Promise<boolean>
}

export function createRunLifecycle<R extends RunTableName, X extends ResultTableName>(
  spec: RunLifecycleSpec<R, X> & { statuses: { fault: Status<R> } },
): FaultingRunLifecycle<R>
export function createRunLifecycle<R extends RunTableName, X extends ResultTableName>(
  spec: RunLifecycleSpec<R, X>,
): RunLifecycle<R>
export function createRunLifecycle<R extends RunTableName, X extends ResultTableName>(
  spec: RunLifecycleSpec<R, X>,
): RunLifecycle<R> | FaultingRunLifecycle<R> {
  const runs = sql.table(spec.runTable)
  const results = sql.table(spec.resultTable)
  const level = sql.ref(spec.levelColumn)
  const { queued, inProgress, completed, cancelled, fault } = spec.statuses
  const { basis } = spec
  const sameSubject = sql.join(
    spec.subjectColumns.map((column) => sql`${sql.ref(`r.${column}`)} = ${sql.ref(`me.${column}`)}`),
    sql` AND `,
  )

  // One attempt's results per rule as a JSON array (RuleCount[]), in the order the rules first produced
  // them: written on completion, and counted on reading for a run completed before that.
  const countedByRule = (rto: string, runId: string, attempt: number) => sql`
    SELECT coalesce(jsonb_agg(jsonb_build_object(
             'technicalRuleId', g.technical_rule_id, 'ruleId', g.rule_id, 'level', g.level,
             'correctiveAction', g.corrective_action, 'resourceTypes', g.resource_types, 'results', g.results)
             ORDER BY g.first_seq), '[]'::jsonb) AS rules
      FROM (SELECT technical_rule_id, min(rule_id) AS rule_id, min(${level}) AS level,
                   min(corrective_action) AS corrective_action,
                   to_jsonb(array_agg(DISTINCT resource_type ORDER BY resource_type)) AS resource_types,
                   count(*)::int AS results, min(seq) AS first_seq
              FROM ${results} WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt = ${attempt}
             GROUP BY technical_rule_id) g`

  const isLive = async (db: Executor, rto: string, runId: string, attempt: number) => {
    const result = await sql`
      SELECT run_id FROM ${runs}
       WHERE rto_id = ${rto} AND run_id = ${runId} AND status = ${inProgress} AND attempt = ${attempt}`.execute(db)
    return result.rows.length > 0
  }

  const deleteAttempt = async (db: Executor, rto: string, runId: string, attempt: number) => {
    await sql`
      DELETE FROM ${results} WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt = ${attempt}`.execute(db)
  }

  const lifecycle: RunLifecycle<R> = {
    async claim(db, rto, runId) {
      const result = await sql<Row<R>>`
        UPDATE ${runs} r
           SET status = ${inProgress}, attempt = r.attempt + 1, started_at = now(), ${basis.set}
          ${basis.from ? sql`FROM ${basis.from}` : sql``}
         WHERE r.rto_id = ${rto} AND r.run_id = ${runId} AND r.status IN (${queued}, ${inProgress})
           ${basis.where ? sql`AND ${basis.where}` : sql``}
        RETURNING r.*`.execute(db)
      return result.rows[0]
    },

    isLive,

    async checkpoint(db, rto, runId, attempt) {
      if (!(await isLive(db, rto, runId, attempt))) return false
      await yieldToEventLoop()
      return true
    },

    async deleteOtherAttempts(db, rto, runId, attempt) {
      await sql`
        DELETE FROM ${results} WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt <> ${attempt}`.execute(db)
    },

    deleteAttempt,

    async complete(db, rto, runId, attempt) {
      const result = await sql`
        UPDATE ${runs} r
           SET status = ${completed}, completed_at = now(),
               has_blocking_failures = s.blocking, has_non_blocking_failures = s.non_blocking, result_count = s.total,
               results_by_rule = b.rules, result_anchors = a.anchors
          FROM (SELECT coalesce(bool_or(${level} = ${spec.blockingLevel}), false) AS blocking,
                       coalesce(bool_or(${level} <> ${spec.blockingLevel}), false) AS non_blocking,
                       count(*)::int AS total
                  FROM ${results} WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt = ${attempt}) s,
               (${countedByRule(rto, runId, attempt)}) b,
               (SELECT array_agg(seq ORDER BY seq) AS anchors
                  FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n
                          FROM ${results} WHERE rto_id = ${rto} AND run_id = ${runId} AND attempt = ${attempt}) k
                 WHERE k.n % ${RESULT_ANCHOR_EVERY} = 1) a
         WHERE r.rto_id = ${rto} AND r.run_id = ${runId} AND r.status = ${inProgress} AND r.attempt = ${attempt}`.execute(
        db,
      )
      if (Number(result.numAffectedRows ?? 0) !== 1) return false
      // Only the subject's latest completed run is ever read: the results of its other runs go.
      await sql`
        DELETE FROM ${results} x USING ${runs} r, ${runs} me
         WHERE me.rto_id = ${rto} AND me.run_id = ${runId}
           AND r.rto_id = me.rto_id AND ${sameSubject} AND r.run_id <> me.run_id
           AND x.rto_id = r.rto_id AND x.run_id = r.run_id`.execute(db)
      return true
    },

    async resultsByRule(db, run) {
      const kept =
        run.results_by_rule ??
        (await sql<{ rules: unknown }>`${countedByRule(run.rto_id, run.run_id, run.attempt)}`.execute(db)).rows[0]!
          .rules
      // jsonb arrives parsed from pg, as text from an older driver path: both are taken.
      return (typeof kept === 'string' ? JSON.parse(kept) : kept) as RuleCount[]
    },

    async completedOutcome(db, rto, runId) {
      const result = await sql<{
        has_blocking_failures: boolean
        has_non_blocking_failures: boolean
        by_level: unknown
      }>`
        SELECT r.has_blocking_failures, r.has_non_blocking_failures,
               coalesce((SELECT jsonb_object_agg(l.level, l.results)
                           FROM (SELECT x->>'level' AS level, sum((x->>'results')::int)::int AS results
                                   FROM jsonb_array_elements(r.results_by_rule) AS x GROUP BY 1) l), '{}'::jsonb) AS by_level
          FROM ${runs} r
         WHERE r.rto_id = ${rto} AND r.run_id = ${runId}`.execute(db)
      const row = result.rows[0]!
      // jsonb arrives parsed from pg, as text from an older driver path: both are taken.
      const byLevel = (typeof row.by_level === 'string' ? JSON.parse(row.by_level) : row.by_level) as Record<
        string,
        number
      >
      return {
        hasBlocking: row.has_blocking_failures,
        hasNonBlocking: row.has_non_blocking_failures,
        resultsByLevel: Object.fromEntries(messageLevels.map((level) => [level, byLevel[level] ?? 0])),
      }
    },

    async cancel(db, rto, runIds) {
      if (runIds.length === 0) return
      await sql`
        UPDATE ${runs} SET status = ${cancelled}, completed_at = now()
         WHERE rto_id = ${rto} AND run_id IN (${sql.join([...runIds])})
           AND status IN (${queued}, ${inProgress})`.execute(db)
    },
  }
  if (fault === undefined) return lifecycle

  return {
    ...lifecycle,
    async fault(db, rto, runId, attempt) {
      const result = await sql`
        UPDATE ${runs} SET status = ${fault}, completed_at = now()
         WHERE rto_id = ${rto} AND run_id = ${runId} AND status = ${inProgress} AND attempt = ${attempt}`.execute(db)
      await deleteAttempt(db, rto, runId, attempt)
      return Number(result.numAffectedRows ?? 0) === 1
    },
  }
}
