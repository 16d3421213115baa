// The reconciliation indexing in steps (the embedded database's way, issue 30) against the one
// transaction (PostgreSQL's): the same submissions go to three services, each on its own database,
// and after each submission their indexes (every link, every item with its dates, every day count)
// must be the same. One service indexes in one transaction; one in steps of two records a slice
// (dozens of steps per submission); one in the same steps, its job failed after a different committed
// step of each submission, as a process killed between two steps is, and resumed by the retry from
// the progress it kept. Run on both databases: on PostgreSQL the steps are asked for by the test.
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import {
  allOf,
  newRto,
  startTestService,
  voided,
  waitFor,
  world,
  type Rto,
  type TestService,
  type Upload,
} from './support/index.ts'

const RTO = 'T5teps01'

describe('reconciliation indexing in steps against one transaction', () => {
  let whole: TestService
  let stepped: TestService
  let interrupted: TestService
  const rtos = new Map<TestService, Rto>()
  /** Steps of each run of the stepped service's job, the most seen. */
  let mostSteps = 0
  /**
   * The step after which the interrupted service's job fails next ('': none; a sliced step's first
   * slice), and the failures made.
   */
  let failAfter = ''
  const failures: string[] = []

  before(async () => {
    ;[whole, stepped, interrupted] = await Promise.all([
      startTestService({ reconciliation: { steps: false } }),
      startTestService({
        reconciliation: {
          steps: true,
          sliceRecords: 2,
          afterStep: async (step) => {
            mostSteps = Math.max(mostSteps, step)
          },
        },
      }),
      startTestService({
        reconciliation: {
          steps: true,
          sliceRecords: 2,
          afterStep: async (_, ran) => {
            if (ran !== failAfter) return
            failAfter = ''
            failures.push(ran)
            throw new Error(`test: the job stops after ${ran}, as a process killed there would`)
          },
        },
      }),
    ])
    for (const t of [whole, stepped, interrupted]) rtos.set(t, await newRto(t, RTO))
  })
  after(async () => {
    await Promise.all([whole, stepped, interrupted].map((t) => t?.close()))
  })

  /** The RTO's whole index, without the submission times (each service submits at its own moment). */
  const indexOf = async (t: TestService) => {
    const db = t.service.database.db
    const links = await sql<{ row: string }>`
      SELECT concat_ws(' ', source_type, source_uid, target_type, target_uid) AS row
        FROM held_link WHERE rto_id = ${RTO} ORDER BY 1`.execute(db)
    const items = await sql<{ row: string }>`
      SELECT concat_ws(' ', resource_type, resource_uid, student_activity_date, coalesce(enrolment_activity_date::text, '-'),
                       coalesce(change_tracking_identifier, '-')) AS row
        FROM reconciliation_item WHERE rto_id = ${RTO} ORDER BY 1`.execute(db)
    const days = await sql<{ row: string }>`
      SELECT concat_ws(' ', resource_type, student_activity_date, items) AS row
        FROM reconciliation_day_count WHERE rto_id = ${RTO} ORDER BY 1`.execute(db)
    return {
      links: links.rows.map((r) => r.row),
      items: items.rows.map((r) => r.row),
      days: days.rows.map((r) => r.row),
    }
  }

  /** Waits until the service's job has cleared its kept progress (after the batch is reconciled, the kept rows go). */
  const progressCleared = (t: TestService) =>
    waitFor('kept progress cleared', async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT (SELECT count(*) FROM reconciliation_progress WHERE rto_id = ${RTO})
             + (SELECT count(*) FROM reconciliation_progress_affected WHERE rto_id = ${RTO})
             + (SELECT count(*) FROM reconciliation_progress_before WHERE rto_id = ${RTO})
             + (SELECT count(*) FROM reconciliation_progress_dropped_link WHERE rto_id = ${RTO}) AS n`.execute(
        t.service.database.db,
      )
      return Number(rows[0]!.n) === 0 ? true : undefined
    })

  const submitEverywhere = async (uploads: Upload[], step: string) => {
    await Promise.all([whole, stepped, interrupted].map((t) => rtos.get(t)!.reporter.submitted(uploads)))
    await Promise.all([stepped, interrupted].map(progressCleared))
    const [expected, inSteps, resumed] = await Promise.all([whole, stepped, interrupted].map(indexOf))
    assert.ok(expected!.items.length > 0, `${step}: the one transaction indexed something`)
    assert.deepEqual(inSteps, expected, `${step}: the index made in steps of two records is the one transaction's`)
    assert.deepEqual(
      resumed,
      expected,
      `${step}: the index made in steps, stopped after a step and resumed, is the one transaction's`,
    )
  }

  // A bound of its own above the runner's 120 s per test: three services each submitting the whole
  // sequence, two of them in slices of two records, ran past 120 s in a CI run at full load (40 to 80 s
  // alone). A bound, not a timing: nothing here is measured.
  it('after each submission of a sequence that adds, raises, moves and voids, the three indexes are the same', {
    timeout: 360_000,
  }, async () => {
    const a = await world()
    a.subjectOffering.programOfferingUID = a.programOffering.programOfferingUID
    const b = await world()
    const cancelled = (date: string) => ({
      studentStatus: 'Cancelled',
      studentActivityDate: date,
      studentStatusReason: 'Formal_withdrawal',
    })
    const enrolment = (date: string, n: number) => ({
      ...structuredClone(a.subjectEnrolment),
      subjectEnrolmentUID: randomUUID(),
      changeTrackingIdentifier: `extra-${n}`,
      lifecycle: [...a.subjectEnrolment.lifecycle, cancelled(date)],
    })
    const extras = [enrolment('2026-10-20', 1), enrolment('2026-10-12', 2), enrolment('2026-11-03', 3)]
    const SE = 'subjectenrolment'

    // The first submission stops after its first step (the progress row only).
    failAfter = 'start'
    await submitEverywhere([...allOf(a), ...allOf(b), ...extras.map((body) => ({ segment: SE, body }))], 'first')
    // Raise, stopped after the first slice of links.
    failAfter = 'links'
    const raised = {
      ...extras[1]!,
      changeTrackingIdentifier: 'extra-2b',
      lifecycle: [...extras[1]!.lifecycle, cancelled('2026-11-09')],
    }
    await submitEverywhere(
      [
        { segment: SE, body: raised },
        { segment: 'student', body: { ...a.student, changeTrackingIdentifier: 's-2' } },
      ],
      'raise',
    )
    // Move to b's offering and location, stopped in the derived dates (after the subjects').
    failAfter = 'dates-2'
    const toB = (body: Record<string, any>, changeTrackingIdentifier: string) => ({
      ...body,
      changeTrackingIdentifier,
      subjectOfferingUID: b.subjectOffering.subjectOfferingUID,
      locations: [{ ...body.locations[0], deliveryLocationUID: b.location.deliveryLocationUID }],
    })
    await submitEverywhere(
      [
        { segment: SE, body: toB(raised, 'extra-2c') },
        { segment: SE, body: toB(extras[0]!, 'extra-1b') },
      ],
      'move',
    )
    // Void, stopped after the step that marks the batch reconciled (the clearing is left to the retry).
    failAfter = 'days'
    await submitEverywhere(
      [
        { segment: SE, body: voided({ ...toB(raised, 'extra-2d') }) },
        { segment: SE, body: voided({ ...extras[2]!, changeTrackingIdentifier: 'extra-3b' }) },
      ],
      'void',
    )

    assert.ok(mostSteps >= 20, `steps of two records make many steps (most in one run: ${mostSteps})`)
    assert.deepEqual(
      failures,
      ['start', 'links', 'dates-2', 'days'],
      'the interrupted service stopped once in each submission',
    )
  })
})
