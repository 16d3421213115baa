// The reconciliation indexing of one submission as bounded steps, for the embedded database (issue 30:
// one process must never stall the others). PGlite runs every statement on the service's own thread
// and one connection: the one-transaction indexing (reconciliation-index.repo.ts, indexSubmission)
// held the service for the whole of it, 6.4 s at 100,000 records. Here each step is a transaction of
// its own, the batch's records a slice of at most `sliceRecords` at a time, and the job gives the event
// loop a turn between steps (reconciliation.jobs.ts), so requests are answered between them.
//
// The statements are the one transaction's, step for step: the same links, items, dates and day
// counts, with what it keeps in temporary tables (the affected records, the dropped links, the items as
// they were) kept in tables of their own (migration 0037), one RTO's rows at a time, with the step
// reached. A step writes its work and its progress in one transaction, so a process killed between
// steps resumes at the next step with nothing done twice or lost, and ends with the index an
// uninterrupted run makes (test/reconciliation-steps.test.ts). The batch is marked reconciled in the
// step that counts the days, the last that changes the index; the kept rows are then cleared in slices.
// Between steps a reader may see part of a submission indexed: reconciledAt is when all of it shows
// (docs/decisions.md, "Round 5 (issue 30)").
import { sql, type RawBuilder } from 'kysely'
import type { Executor } from '../../platform/db/database.ts'
import {
  DATED_BY,
  analyseWhenStale,
  countDays,
  linksOf,
  updateDates,
  writeItems,
  type IndexingRelations,
} from './reconciliation-index.repo.ts'

export interface ReconciliationProgressTables {
  reconciliation_progress: {
    rto_id: string
    transaction_batch_token: string
    jurisdiction: string
    submitted_at: Date
    records: number
    step: string
    after_type: string | null
    after_uid: string | null
  }
  reconciliation_progress_affected: { rto_id: string; resource_type: string; resource_uid: string }
  reconciliation_progress_dropped_link: {
    rto_id: string
    target_type: string
    target_uid: string
    source_type: string
    source_uid: string
  }
  reconciliation_progress_before: {
    rto_id: string
    resource_type: string
    resource_uid: string
    enrolment_activity_date: string | null
    student_activity_date: string
  }
}

declare module '../../platform/db/schema.ts' {
  interface Database extends ReconciliationProgressTables {}
}

/** Records per step when nothing else is said (RECONCILIATION_SLICE_RECORDS). */
export const DEFAULT_SLICE_RECORDS = 1_000

/** The steps, in order; a sliced step is repeated, a slice at a time, before the next. */
const STEPS = [
  'links', // sliced over the batch: its records' old links out, their new links in, all they touch kept as affected
  'analyse-links',
  'expand-1', // an offering's date feeds its subject, program offering and program: two steps up
  'expand-2',
  'before', // sliced over the affected records: their items as they were
  'items', // sliced over the batch
  'analyse-items',
  ...DATED_BY.map((_, i) => `dates-${i}`),
  'days', // the day counts; the batch is marked reconciled in the same transaction
  'cleanup', // sliced: the kept rows deleted, then the progress row
] as const

export interface IndexingProgress {
  rto: string
  token: string
  jurisdiction: string
  submittedAt: Date
  records: number
  step: string
  /** Inside a sliced step: the last key done. */
  after: { type: string; uid: string } | null
}

/** The RTO's indexing under way, locked for this transaction; undefined when there is none. */
export async function keptProgress(db: Executor, rto: string): Promise<IndexingProgress | undefined> {
  const { rows } = await sql<{
    token: string
    jurisdiction: string
    submitted_at: Date
    records: number
    step: string
    after_type: string | null
    after_uid: string | null
  }>`
    SELECT transaction_batch_token AS token, jurisdiction, submitted_at, records, step, after_type, after_uid::text AS after_uid
      FROM reconciliation_progress WHERE rto_id = ${rto} FOR UPDATE`.execute(db)
  const row = rows[0]
  if (!row) return undefined
  return {
    rto,
    token: row.token,
    jurisdiction: row.jurisdiction,
    submittedAt: new Date(row.submitted_at),
    records: row.records,
    step: row.step,
    after: row.after_type && row.after_uid ? { type: row.after_type, uid: row.after_uid } : null,
  }
}

/** Starts indexing the batch in steps: its progress row, at the first step. */
export async function startIndexing(
  db: Executor,
  rto: string,
  batch: { token: string; jurisdiction: string; submittedAt: Date },
): Promise<void> {
  await sql`
    INSERT INTO reconciliation_progress (rto_id, transaction_batch_token, jurisdiction, submitted_at, records, step)
    SELECT ${rto}, ${batch.token}, ${batch.jurisdiction}, ${batch.submittedAt}::timestamptz, count(*), ${STEPS[0]}
      FROM batch_content b WHERE b.rto_id = ${rto} AND b.transaction_batch_token = ${batch.token}`.execute(db)
}

/** The kept tables of one RTO, as the one transaction's statements name their temporary tables. */
const keptRelations = (rto: string): IndexingRelations => ({
  affected: sql`(SELECT resource_type, resource_uid FROM reconciliation_progress_affected WHERE rto_id = ${rto})`,
  before: sql`(SELECT resource_type, resource_uid, enrolment_activity_date, student_activity_date
                 FROM reconciliation_progress_before WHERE rto_id = ${rto})`,
  dropped: sql`(SELECT target_type, target_uid, source_type, source_uid
                  FROM reconciliation_progress_dropped_link WHERE rto_id = ${rto})`,
})

/**
 * The next slice of a keyed set, from after the last key done: the condition that selects it (over
 * `alias`'s resource_type and resource_uid, as the primary key orders them), and its last key, or
 * null when it runs to the end. Found by one probe of the index (the slice's last row), so every
 * statement of the slice reads a key range.
 */
async function nextSlice(
  db: Executor,
  from: RawBuilder<unknown>,
  alias: string,
  base: RawBuilder<unknown>,
  after: IndexingProgress['after'],
  size: number,
): Promise<{ where: RawBuilder<unknown>; last: IndexingProgress['after'] }> {
  const key = sql`(${sql.ref(`${alias}.resource_type`)}, ${sql.ref(`${alias}.resource_uid`)})`
  const start = after ? sql`${base} AND ${key} > (${after.type}, ${after.uid}::uuid)` : base
  const { rows } = await sql<{ type: string; uid: string }>`
    SELECT ${sql.ref(`${alias}.resource_type`)} AS type, ${sql.ref(`${alias}.resource_uid`)}::text AS uid
      FROM ${from} WHERE ${start}
     ORDER BY ${sql.ref(`${alias}.resource_type`)}, ${sql.ref(`${alias}.resource_uid`)} OFFSET ${size - 1} LIMIT 1`.execute(
    db,
  )
  const last = rows[0] ?? null
  return { where: last ? sql`${start} AND ${key} <= (${last.type}, ${last.uid}::uuid)` : start, last }
}

/** The settings of the one transaction (reconciliation-index.repo.ts says why), for a step's. */
async function tune(db: Executor): Promise<void> {
  await sql`SET LOCAL jit = off`.execute(db)
  await sql`SET LOCAL random_page_cost = 1.1`.execute(db)
  await sql`SET LOCAL work_mem = '64MB'`.execute(db)
}

async function moveTo(db: Executor, p: IndexingProgress, step: string, after: IndexingProgress['after']) {
  await sql`
    UPDATE reconciliation_progress SET step = ${step}, after_type = ${after?.type ?? null}, after_uid = ${after?.uid ?? null}::uuid
     WHERE rto_id = ${p.rto}`.execute(db)
}

/** The step after `step`, from the start. */
function following(step: string): string {
  const at = STEPS.indexOf(step as (typeof STEPS)[number])
  if (at < 0 || at + 1 >= STEPS.length) throw new Error(`no step after ${step}`)
  return STEPS[at + 1]!
}

/**
 * Runs the indexing's next step (or slice of one) in this transaction and keeps the progress it made.
 * 'indexed' when that step was the last that changes the index (the caller marks the batch reconciled
 * in the same transaction), 'done' when the progress is cleared and the RTO's next batch may start,
 * 'more' otherwise.
 */
export async function indexingStep(
  db: Executor,
  p: IndexingProgress,
  sliceRecords: number,
): Promise<'more' | 'indexed' | 'done'> {
  const rto = p.rto
  const inBatch = sql`b.rto_id = ${rto} AND b.transaction_batch_token = ${p.token}`
  const batchSlice = () => nextSlice(db, sql`batch_content b`, 'b', inBatch, p.after, sliceRecords)
  // A sliced step stays where it is until its last slice; any other moves on.
  const sliced = async (last: IndexingProgress['after']) =>
    last ? moveTo(db, p, p.step, last) : moveTo(db, p, following(p.step), null)
  await tune(db)
  switch (p.step) {
    case 'links': {
      const slice = await batchSlice()
      await sql`
        INSERT INTO reconciliation_progress_affected
        SELECT b.rto_id, b.resource_type, b.resource_uid FROM batch_content b WHERE ${slice.where}
        ON CONFLICT DO NOTHING`.execute(db)
      await sql`
        WITH old AS (
          DELETE FROM held_link l USING batch_content b
           WHERE ${slice.where} AND l.rto_id = b.rto_id AND l.source_type = b.resource_type AND l.source_uid = b.resource_uid
          RETURNING l.target_type, l.target_uid, l.source_type, l.source_uid),
        kept AS (INSERT INTO reconciliation_progress_dropped_link SELECT ${rto}::text, target_type, target_uid, source_type, source_uid FROM old)
        INSERT INTO reconciliation_progress_affected SELECT DISTINCT ${rto}::text, target_type, target_uid FROM old ON CONFLICT DO NOTHING`.execute(
        db,
      )
      await sql`
        WITH added AS (
          INSERT INTO held_link (rto_id, source_type, source_uid, target_type, target_uid)
          SELECT b.rto_id, b.resource_type, b.resource_uid, t.target_type, t.target_uid
            FROM batch_content b CROSS JOIN ${linksOf()}
           WHERE ${slice.where} AND NOT b.is_voided
           ORDER BY t.target_type COLLATE "C", t.target_uid, b.resource_type COLLATE "C", b.resource_uid
          RETURNING target_type, target_uid)
        INSERT INTO reconciliation_progress_affected SELECT DISTINCT ${rto}::text, target_type, target_uid FROM added ON CONFLICT DO NOTHING`.execute(
        db,
      )
      await sliced(slice.last)
      return 'more'
    }
    case 'analyse-links':
      await sql`ANALYZE reconciliation_progress_affected`.execute(db)
      await analyseWhenStale(db, 'held_link', p.records)
      break
    case 'expand-1':
    case 'expand-2':
      await sql`
        INSERT INTO reconciliation_progress_affected
        SELECT DISTINCT a.rto_id, l.target_type, l.target_uid
          FROM reconciliation_progress_affected a JOIN held_link l
            ON l.rto_id = a.rto_id AND l.source_type = a.resource_type AND l.source_uid = a.resource_uid
         WHERE a.rto_id = ${rto} AND a.resource_type IN ('SubjectOffering', 'ProgramOffering')
        ON CONFLICT DO NOTHING`.execute(db)
      break
    case 'before': {
      const slice = await nextSlice(
        db,
        sql`reconciliation_progress_affected a`,
        'a',
        sql`a.rto_id = ${rto}`,
        p.after,
        sliceRecords,
      )
      await sql`
        INSERT INTO reconciliation_progress_before
        SELECT a.rto_id, r.resource_type, r.resource_uid, r.enrolment_activity_date, r.student_activity_date
          FROM reconciliation_progress_affected a JOIN reconciliation_item r
            ON r.rto_id = a.rto_id AND r.resource_type = a.resource_type AND r.resource_uid = a.resource_uid
         WHERE ${slice.where}`.execute(db)
      await sliced(slice.last)
      return 'more'
    }
    case 'items': {
      const slice = await batchSlice()
      await writeItems(db, slice.where, p.submittedAt)
      await sliced(slice.last)
      return 'more'
    }
    case 'analyse-items':
      await sql`ANALYZE reconciliation_progress_affected, reconciliation_progress_before, reconciliation_progress_dropped_link`.execute(
        db,
      )
      await analyseWhenStale(db, 'reconciliation_item', p.records)
      break
    case 'days':
      await countDays(db, rto, keptRelations(rto))
      await moveTo(db, p, following(p.step), null)
      return 'indexed'
    case 'cleanup': {
      let left = 0
      for (const table of [
        'reconciliation_progress_affected',
        'reconciliation_progress_dropped_link',
        'reconciliation_progress_before',
      ] as const) {
        const deleted = await sql`
          DELETE FROM ${sql.table(table)} WHERE ctid IN (
            SELECT ctid FROM ${sql.table(table)} WHERE rto_id = ${rto} LIMIT ${sliceRecords})`.execute(db)
        left += Number(deleted.numAffectedRows ?? 0)
      }
      if (left > 0) return 'more'
      await sql`DELETE FROM reconciliation_progress WHERE rto_id = ${rto}`.execute(db)
      return 'done'
    }
    default: {
      const dates = /^dates-(\d+)$/.exec(p.step)
      const entry = dates ? DATED_BY[Number(dates[1])] : undefined
      if (!entry) throw new Error(`unknown reconciliation indexing step ${p.step}`)
      // Only a type of which some affected record had an item can start from a previous date.
      const { rows } = await sql<{ existed: boolean }>`
        SELECT EXISTS (SELECT 1 FROM reconciliation_progress_before WHERE rto_id = ${rto} AND resource_type = ${entry[0]}) AS existed`.execute(
        db,
      )
      const existed = new Set(rows[0]?.existed ? [entry[0]] : [])
      await updateDates(db, rto, existed, keptRelations(rto), [entry])
    }
  }
  await moveTo(db, p, following(p.step), null)
  return 'more'
}
