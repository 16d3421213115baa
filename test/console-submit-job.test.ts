// The console's submit as a queued job (issue 32 item 3): the press answers at once with the submit's
// status page when the submit does not end within a few seconds, says Queued / Running (with its stage)
// / Submitted (what was submitted) / Failed (the refusal in words), live with live-status.js and by its
// "Refresh the status" link without script; a double press submits nothing twice; a submit whose worker
// dies part-way is retried or ends Failed and never leaves the batch half-submitted (the promotion and
// the job's Submitted are one transaction). The browser parts run in Debian's Chromium checked by
// axe-core, and are skipped, saying what to install, when Chromium is absent; the crash-safety part runs
// without a browser. A test hook on the submit job holds a submit before its transaction (so its page
// opens Queued or Running) or throws inside it, after the records were written, as a dying worker would.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { sql } from 'kysely'
import { requestSubmit, submitStatus, type SubmitStage, type SubmitStatus } from '../src/modules/holdings/index.ts'
import { Scopes } from '../src/platform/auth/scopes.ts'
import {
  minimalUnitRecord,
  Reporter,
  startTestService,
  uidOf,
  waitFor,
  type TestService,
  type Upload,
} from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  screenshot,
  signIn,
} from './console/browser.ts'

/** What the submit job's hook does: hold every submit before its transaction, or crash some inside it. */
const control = {
  gate: undefined as Promise<void> | undefined,
  crashAt: undefined as SubmitStage | undefined,
  crashes: 0,
}
let release: () => void = () => {}
const hold = () => {
  control.gate = new Promise<void>((resolve) => {
    release = () => {
      control.gate = undefined
      resolve()
    }
  })
}
const afterStage = async (stage: SubmitStage) => {
  if (stage === 'checking' && control.gate) await control.gate
  if (stage === control.crashAt && control.crashes > 0) {
    control.crashes--
    throw new Error('the worker died part-way (test)')
  }
}

async function startService(): Promise<TestService> {
  return startTestService({ portKnownBeforeStart: true, submit: { afterStage } })
}

const STATUS_PAGE = /\/console\/rto\/90001\/submits\/NSW\/([0-9a-f-]{36})$/

describe('web console: a submit followed on its status page', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter
  let uploads: Upload[]

  before(async () => {
    ;[t, browser] = await Promise.all([startService(), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    uploads = await minimalUnitRecord()
  })
  after(async () => {
    release()
    await browser?.close()
    await t?.close()
  })

  const jobsOf = async (batch: string) =>
    (
      await sql<{
        status: string
      }>`SELECT status FROM submit_job WHERE rto_id = '90001' AND transaction_batch_token = ${batch}`.execute(
        t.service.database.db,
      )
    ).rows.map((row) => row.status)

  it('the press answers with the status page, said live and by the refresh link; a double press submits once', async () => {
    const batch = await rto1.batchWith(uploads)
    await rto1.validate(batch)
    const batchUrl = `${t.baseUrl}/console/rto/90001/batches/NSW/${batch}`
    hold()
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() })
    try {
      // The batch's page, open without script in a second tab before the first press.
      const plain = await noScript.newPage()
      await plain.goto(batchUrl)
      await page.goto(batchUrl)
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      // The press waits a few seconds for the job, then goes to the submit's page.
      await page.waitForURL(STATUS_PAGE, { timeout: 60_000 })
      const submitId = STATUS_PAGE.exec(new URL(page.url()).pathname)![1]
      await page.getByRole('heading', { level: 1, name: `Submit of batch ${batch}` }).waitFor()
      const status = page.locator('#submit-status')
      assert.match(
        String(await status.textContent()),
        /^(Queued: waiting its turn|Running: checking the batch, its validation and any acknowledgement)/,
      )
      assert.equal(await status.getAttribute('aria-live'), 'polite')
      await page.getByRole('link', { name: 'Refresh the status' }).waitFor()
      await page.getByText('Nothing is held until it says Submitted').waitFor()
      await assertAccessible(page)
      await screenshot(page, 'submit-status')
      await page.setViewportSize({ width: 390, height: 844 })
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
      await page.setViewportSize({ width: 1280, height: 900 })

      // The batch's page now leads to the submit instead of offering it again.
      const fresh = await noScript.newPage()
      await fresh.goto(batchUrl)
      assert.equal(await fresh.getByRole('button', { name: 'Submit the batch' }).count(), 0)
      await fresh.getByRole('link', { name: 'follow the submit' }).click()
      assert.equal(STATUS_PAGE.exec(new URL(fresh.url()).pathname)?.[1], submitId)
      // A second press, from the page opened before the first, finds the same submit: no second job.
      await plain.getByRole('button', { name: 'Submit the batch' }).click()
      await plain.waitForURL(STATUS_PAGE, { timeout: 60_000 })
      assert.equal(STATUS_PAGE.exec(new URL(plain.url()).pathname)![1], submitId, 'the same submit')
      assert.deepEqual(await jobsOf(batch), ['Running'])
      assert.match(String(await plain.locator('#submit-status').textContent()), /^Running: checking the batch/)
      await plain.getByRole('link', { name: 'Refresh the status' }).click()
      assert.match(String(await plain.locator('#submit-status').textContent()), /^Running: checking the batch/)

      // Released: the live status says Submitted, and the outcome is put in place with its links.
      release()
      await page.getByRole('link', { name: 'Go to the batch' }).waitFor({ timeout: 60_000 })
      assert.equal(String(await status.textContent()).trim(), 'Submitted')
      await page.getByText(`Submitted: ${uploads.length} records are now held.`).waitFor()
      assert.equal(await page.getByRole('link', { name: 'Refresh the status' }).count(), 0)
      await assertAccessible(page)
      // Without script, the refresh link says it too.
      await plain.getByRole('link', { name: 'Refresh the status' }).click()
      await plain.getByText(`Submitted: ${uploads.length} records are now held.`).waitFor()
      assert.equal(await plain.getByRole('link', { name: 'Refresh the status' }).count(), 0)

      const read = await rto1.request('GET', rto1.batchPath(batch))
      assert.equal(read.json.status, 'Submitted')
      assert.deepEqual(await jobsOf(batch), ['Submitted'], 'one submit of the batch, whatever the presses')
      const student = uploads.find((u) => u.segment === 'student')!
      const held = await rto1.heldState('student', uidOf(student.body))
      assert.equal(held.stateInSubmission, 'In submission')
      await page.getByRole('link', { name: 'Go to the batch' }).click()
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).count(), 0)
    } finally {
      release()
      await noScript.close()
      await context.close()
    }
  })

  it('a submit refused by its job (the batch changed while it waited) says why, without script', async () => {
    const batch = await rto1.batchWith(uploads)
    await rto1.validate(batch)
    hold()
    const { context, page: withScript } = await signIn(browser, t.baseUrl, 'staff-90001')
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() })
    try {
      const page = await noScript.newPage()
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}`)
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      await page.waitForURL(STATUS_PAGE, { timeout: 60_000 })
      // The batch changes after its validation, while the submit waits its turn.
      const student = uploads.find((u) => u.segment === 'student')!
      await rto1.upload(batch, [
        { segment: 'student', body: { ...student.body, emailAddressPrimary: 'changed@example.org' } },
      ])
      release()
      await waitFor('the submit to end', async () => ((await jobsOf(batch))[0] === 'Failed' ? true : undefined), {
        timeoutMs: 60_000,
        intervalMs: 200,
      })
      await page.getByRole('link', { name: 'Refresh the status' }).click()
      assert.equal(String(await page.locator('#submit-status').textContent()).trim(), 'Failed: nothing was submitted')
      await page
        .getByRole('alert')
        .getByText('The batch changed after it was last checked. Validate it again, then submit it.')
        .waitFor()
      // axe runs scripts: the same page, checked with them on (a page without the script runs none).
      await withScript.goto(page.url())
      await withScript.getByRole('alert').getByText('The batch changed after it was last checked.').waitFor()
      await assertAccessible(withScript)
      await page.getByRole('link', { name: 'Back to the batch' }).click()
      await page.getByRole('button', { name: /Validate the batch/ }).waitFor()
      assert.equal((await rto1.request('GET', rto1.batchPath(batch))).json.status, 'NotSubmitted')
    } finally {
      release()
      await noScript.close()
      await context.close()
    }
  })
})

describe('the submit job: a worker that dies part-way never leaves a batch half-submitted', () => {
  let t: TestService
  let rto1: Reporter
  let uploads: Upload[]
  before(async () => {
    t = await startService()
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    uploads = await minimalUnitRecord()
  })
  after(async () => {
    control.crashes = 0
    await t?.close()
  })

  const actor = { rto: '90001', clientId: 'console:staff-90001', scopes: new Set([Scopes.report]) }
  const heldOf = async (batch: string) =>
    Number(
      (
        await sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM held_record WHERE rto_id = '90001' AND transaction_batch_token = ${batch}`.execute(
          t.service.database.db,
        )
      ).rows[0]!.n,
    )
  const ended = (submitId: string) =>
    waitFor(
      `submit ${submitId} to end`,
      async () => {
        const s = await submitStatus(t.service.database.db, actor, 'NSW', submitId)
        return s.status === 'Submitted' || s.status === 'Failed' ? s : undefined
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    )
  const submit = (batch: string) =>
    requestSubmit({ db: t.service.database.db, queue: t.service.queue, job: t.service.jobs.submit }, actor, {
      token: batch,
      jurisdiction: 'NSW',
    })

  it('dying after the records were written, on every attempt: it ends Failed, and nothing is held', async () => {
    const batch = await rto1.batchWith(uploads)
    await rto1.validate(batch)
    control.crashAt = 'recording' // after promotion wrote every record, inside the submit's transaction
    control.crashes = 3
    const s: SubmitStatus = await ended(await submit(batch))
    assert.equal(s.status, 'Failed')
    assert.equal(s.attempts, 3, 'the first attempt and two retries')
    assert.equal(s.problem?.kind, 'internal-error')
    assert.match(String(s.problem?.detail), /nothing was submitted/)
    assert.equal(await heldOf(batch), 0, 'no record of the batch is held')
    assert.equal((await rto1.request('GET', rto1.batchPath(batch))).json.status, 'NotSubmitted')
  })

  it('dying once: the queue runs it again, and the batch is submitted once, whole', async () => {
    const batch = await rto1.batchWith(uploads)
    await rto1.validate(batch)
    control.crashAt = 'recording'
    control.crashes = 1
    const submitId = await submit(batch)
    const s = await ended(submitId)
    assert.equal(s.status, 'Submitted', JSON.stringify(s.problem))
    assert.equal(s.attempts, 2)
    assert.equal(s.result?.numberOfRecordsSubmitted, uploads.length)
    assert.equal(await heldOf(batch), uploads.length)
    // Delivered again after it finished (at-least-once delivery): nothing more happens.
    await t.service.jobs.submit.handle({ rto: '90001', submitId }, { retryCount: 0 } as never)
    assert.equal(await heldOf(batch), uploads.length)
    assert.equal((await submitStatus(t.service.database.db, actor, 'NSW', submitId)).attempts, 2)
    // Another press after it is submitted ends Failed with the refusal, and submits nothing.
    const again = await ended(await submit(batch))
    assert.deepEqual([again.status, again.problem?.reason], ['Failed', 'batch-submitted'])
    assert.equal(await heldOf(batch), uploads.length)
  })

  it("another RTO's submit, or one under another jurisdiction, is not found", async () => {
    const batch = await rto1.batchWith(uploads)
    const submitId = await submit(batch) // not validated: it ends Failed, refused
    const s = await ended(submitId)
    assert.deepEqual([s.status, s.problem?.reason], ['Failed', 'validation-not-requested'])
    const other = { ...actor, rto: '90002' }
    await assert.rejects(submitStatus(t.service.database.db, other, 'NSW', submitId), { kind: 'not-found' })
    await assert.rejects(submitStatus(t.service.database.db, actor, 'VIC', submitId), { kind: 'not-found' })
    await assert.rejects(
      requestSubmit({ db: t.service.database.db, queue: t.service.queue, job: t.service.jobs.submit }, other, {
        token: batch,
        jurisdiction: 'NSW',
      }),
      { kind: 'not-found' },
    )
  })
})
