// Issue 30: the console's landing page shows, per jurisdiction and period, the enrolments held, a count
// over every current enrolment of the RTO that held the embedded database's only connection for up to
// 0.8 s per view at 100,000 records. It is counted once per change of the RTO's submissions: counted
// again after a submission, and not on a view with nothing submitted since.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { PERIOD, startTestService, tokenFor, waitFor, type TestService } from './support/index.ts'
import { loadBatch } from '../bench/batch-loader.ts'
import { periodSubmissions } from '../src/modules/holdings/index.ts'

describe("enrolments held per period are counted once per change of the RTO's submissions (issue 30)", () => {
  let t: TestService
  let headers: { authorization: string }
  const actor = { clientId: 'demo-rto-1', rto: '90001', scopes: new Set<string>() }
  const heldInPeriod = async () =>
    (await periodSubmissions(t.service.database.db, actor)).find(
      (p) => p.jurisdiction === 'NSW' && p.reportingPeriodNumber === PERIOD,
    )?.enrolmentsHeld ?? 0
  /** A batch of `records` loaded, validated and submitted through the API. */
  const submitBatch = async (records: number) => {
    const { token } = await loadBatch(t.service.database.db, records)
    const batch = `${t.baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
    assert.equal((await fetch(`${batch}/validate`, { method: 'POST', headers })).status, 201)
    await waitFor('the batch validated', async () =>
      (await (await fetch(`${batch}/validate`, { headers })).json()).validationStatus === 'Validated'
        ? true
        : undefined,
    )
    assert.equal((await fetch(`${batch}/submit`, { method: 'POST', headers })).status, 200)
  }
  /** Enrolments held now, counted in the database. */
  const counted = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*) AS n FROM held_record WHERE rto_id = '90001' AND is_current
          AND state_in_submission = 'In submission' AND resource_type IN ('ProgramEnrolment', 'SubjectEnrolment')`.execute(
          t.service.database.db,
        )
      ).rows[0]!.n,
    )

  before(async () => {
    t = await startTestService()
    headers = { authorization: `Bearer ${await tokenFor(t.baseUrl)}` }
  })
  after(() => t?.close())

  it('a view with nothing submitted since reuses the count; a submission makes it count again', async () => {
    await submitBatch(100)
    const first = await heldInPeriod()
    assert.equal(first, await counted())
    assert.ok(first > 0)
    // A change no submission made (only a test does this): a view before the next submission does not
    // count again, so it does not see it.
    await sql`UPDATE held_record SET state_in_submission = 'Voided in submission'
               WHERE rto_id = '90001' AND is_current AND resource_type = 'SubjectEnrolment'
                 AND resource_uid = (SELECT resource_uid FROM held_record WHERE rto_id = '90001' AND is_current
                                        AND resource_type = 'SubjectEnrolment' LIMIT 1)`.execute(t.service.database.db)
    assert.equal(await heldInPeriod(), first)
    await submitBatch(100)
    assert.equal(await heldInPeriod(), await counted())
    assert.notEqual(await heldInPeriod(), first)
  })
})
