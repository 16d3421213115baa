// The web console's remaining RTO pages, end to end in Debian's Chromium (playwright-core) against a
// real running service, each page checked by axe-core: the data quality assessment of a period and
// jurisdiction (request it, its status, its failed outcomes by rule), a held record and its related
// records, and the batch page's live validation status (a script that only enhances). Skipped, saying what to
// install, when Chromium is absent. test/console.test.ts covers signing in, sessions and the first
// pages; test/console-operator.test.ts the operators' pages.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import {
  allOf,
  minimalUnitRecord,
  uidOf,
  voided,
  PERIOD,
  Reporter,
  startTestService,
  world,
  type TestService,
  type Upload,
} from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  reloadUntil,
  screenshot,
  signIn,
  type SignedIn,
} from './console/browser.ts'

/** The minimal unit record with a student born in 2022: the assessment's implausible age (DQTS10090, a Warning). */
const implausibleStudent = (w: Awaited<ReturnType<typeof world>>): Upload[] => [
  { segment: 'student', body: { ...w.student, dateOfBirth: '2022-01-01' } },
  ...allOf(w).slice(1),
]

describe('web console: the RTO pages', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter
  let started: Promise<void> | undefined
  /** The queue's workers start when a test first needs them (the live status test holds a run Queued first). */
  const workers = () => (started ??= t.service.queue.startWorkers())

  before(async () => {
    ;[t, browser] = await Promise.all([
      startTestService({ portKnownBeforeStart: true, service: { workers: false } }),
      launchChromium(),
    ])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })

  after(async () => {
    await heldAssessment?.context.close()
    await browser?.close()
    await t?.close()
  })

  // First, while the queue's workers are stopped: the validation stays Queued until the test starts them.
  // The assessment page's live status, in two parts around the batch test below, which starts the
  // queue's workers: first requested while they are held (Queued), then seen to complete on the same page.
  let heldAssessment: SignedIn | undefined
  const assessmentStatusPath = `/console/rto/90002/assessment/status?period=${PERIOD}&jurisdiction=NSW`

  it('the assessment page shows a requested assessment’s status live: Queued while the queue is held', async () => {
    // RTO 90002 with nothing submitted: its assessment stays Queued until the queue's workers start.
    heldAssessment = await signIn(browser, t.baseUrl, 'declarer-90002')
    const { page } = heldAssessment
    await page.goto(`${t.baseUrl}/console/rto/90002/assessment?period=${PERIOD}&jurisdiction=NSW`)
    await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).click()
    const status = page.locator('#assessment-status')
    await status.getByText('Queued').waitFor()
    assert.equal(await status.getAttribute('aria-live'), 'polite')
    await page.getByRole('link', { name: 'Refresh the status' }).waitFor()
    assert.equal(await page.getByRole('button', { name: /Request an assessment/ }).count(), 0)
    await assertAccessible(page)
    // Cancelled while Queued (the API's DELETE .../validate), then asked for again.
    await page.getByRole('button', { name: `Cancel the assessment of NSW ${PERIOD}` }).click()
    await page
      .getByRole('status')
      .getByText(/was cancelled/)
      .waitFor()
    await status.getByText('Required').waitFor()
    await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).click()
    await status.getByText('Queued').waitFor()
    // A mark on this document: a reload or a navigation would lose it.
    await page.evaluate(() => Object.assign(globalThis, { consoleTestMark: 'same document' }))
  })

  it('the batch page shows the validation status live while it runs, then its results, without a reload', async () => {
    const batch = await rto1.batchWith(await minimalUnitRecord())
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      const response = await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}`)
      assert.match(String(response?.headers()['content-security-policy']), /script-src 'self';/)
      await page.getByRole('button', { name: 'Validate the batch' }).click()
      const status = page.locator('#validation-status')
      await status.getByText('Queued').waitFor()
      assert.equal(await status.getAttribute('aria-live'), 'polite')
      await page.getByText('No validation of this batch has completed yet.').waitFor()
      await assertAccessible(page)
      // Cancelled while Queued (the API's DELETE .../validate), then asked for again.
      await page.getByRole('button', { name: 'Cancel the validation' }).click()
      await page
        .getByRole('status')
        .getByText(/The validation was cancelled/)
        .waitFor()
      await status.getByText('Not requested').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Cancel the validation' }).count(), 0)
      const cancelled = await rto1.request('GET', `/vet-provider/v1/NSW/transaction-batch/${batch}/validate`)
      assert.equal(cancelled.status, 404, cancelled.text)
      await page.getByRole('button', { name: 'Validate the batch' }).click()
      await status.getByText('Queued').waitFor()
      // A mark on this document: a reload or a navigation would lose it.
      await page.evaluate(() => Object.assign(globalThis, { consoleTestMark: 'same document' }))
      await workers()
      await status.getByText(/^Validated/).waitFor({ timeout: 60_000 })
      await page
        .getByText(/Failed results by rule|The latest validation found no failures\./)
        .first()
        .waitFor()
      assert.equal(await page.getByText('No validation of this batch has completed yet.').count(), 0)
      assert.equal(await page.getByRole('link', { name: 'Refresh the status' }).count(), 0)
      assert.equal(
        await page.evaluate(() => (globalThis as { consoleTestMark?: string }).consoleTestMark),
        'same document',
        'the status and results changed without a reload',
      )
      await assertAccessible(page)

      // The status answer the script reads: another RTO's batch is 404 to its people.
      const answer = await context.request.get(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}/status`)
      assert.equal((await answer.json()).status, 'Validated')
    } finally {
      await context.close()
    }
    const other = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      const answer = await other.context.request.get(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}/status`)
      assert.equal(answer.status(), 404)
    } finally {
      await other.context.close()
    }
  })

  it('the assessment page shows a requested assessment’s status live: then its outcome, without a reload', async () => {
    assert.ok(heldAssessment, 'the first part ran')
    const { context, page } = heldAssessment
    try {
      await workers()
      const status = page.locator('#assessment-status')
      await status.getByText(/^Validated/).waitFor({ timeout: 60_000 })
      await page.getByText('The latest assessment found nothing to correct.').waitFor()
      assert.equal(await page.getByRole('link', { name: 'Refresh the status' }).count(), 0)
      // The request button is offered again: the page's parts as made now.
      await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).waitFor()
      assert.equal(
        await page.evaluate(() => (globalThis as { consoleTestMark?: string }).consoleTestMark),
        'same document',
        'the status and outcome changed without a reload',
      )
      await assertAccessible(page)
      const answer = await context.request.get(`${t.baseUrl}${assessmentStatusPath}`)
      assert.equal((await answer.json()).status, 'Validated')
    } finally {
      await context.close()
      heldAssessment = undefined
    }
    const other = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      assert.equal((await other.context.request.get(`${t.baseUrl}${assessmentStatusPath}`)).status(), 404)
    } finally {
      await other.context.close()
    }
  })

  it('the authorised person requests a data quality assessment from the home page, and its failed outcomes are read by rule', async () => {
    await workers()
    const w = await world()
    await rto1.submitted(implausibleStudent(w))
    const path = `/console/rto/90001/assessment?period=${PERIOD}&jurisdiction=NSW`
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      await page.getByRole('link', { name: `Required (assessment of NSW ${PERIOD})` }).click()
      await page.getByRole('heading', { level: 1, name: 'Data quality assessment' }).waitFor()
      assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, path)
      await page.getByText('No assessment of this period has completed yet.').waitFor()
      await assertAccessible(page)

      await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).click()
      await page.getByRole('status').getByText(`Assessment of NSW ${PERIOD} requested.`).waitFor()
      await reloadUntil(page, 'Failed outcomes by rule')
      const facts = String(await page.locator('dl.facts').textContent())
      assert.match(facts, /Validated/)
      assert.match(facts, /warnings/)
      const rule = page.getByRole('table', { name: 'Failed outcomes by rule' }).getByRole('row', { name: /^DQTS10090/ })
      assert.match(String(await rule.textContent()), /Warning\s*1\s*Student.*\S/s)
      await assertAccessible(page)
      await screenshot(page, 'assessment')

      // One rule's outcomes, paged on the server, the record named.
      await rule.getByRole('link', { name: 'DQTS10090' }).click()
      await page.getByRole('table', { name: /^1 failed outcomes of rule DQTS10090, page 1 of 1/ }).waitFor()
      assert.match(page.url(), /rule=DQTS10090/)
      await assertAccessible(page)
      // The outcome's record is named as people know it, and links to its held record page.
      const { firstGivenName, familyName } = w.student as unknown as { firstGivenName: string; familyName: string }
      await page
        .getByRole('table', { name: /failed outcomes of rule/ })
        .getByRole('link', { name: `${firstGivenName} ${familyName} (Student)` })
        .click()
      await page.getByRole('heading', { level: 1, name: 'Held records' }).waitFor()
      assert.match(String(await page.locator('dl.facts').textContent()), /In submission/)
      await page.goBack()

      // Asked again while Validated: a new assessment; asked while it is pending: the API's refusal.
      await page.goto(`${t.baseUrl}${path}`)
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const form = { _csrf: token, period: String(PERIOD), jurisdiction: 'NSW' }
      const post = (body: Record<string, string>) =>
        context.request.post(`${t.baseUrl}/console/rto/90001/assessment`, { form: body, maxRedirects: 0 })
      assert.equal((await post({ ...form, period: '199901' })).status(), 400, 'a period not offered')
      assert.equal((await post({ _csrf: 'wrong', period: String(PERIOD), jurisdiction: 'NSW' })).status(), 403)

      await page.setViewportSize({ width: 320, height: 640 })
      await page.reload()
      await assertNoHorizontalScroll(page)
    } finally {
      await context.close()
    }

    // RTO staff may request it too (the person fixing the data checks it again: the console's choice,
    // the API asks for vet:declare); the operator reads it and requests nothing. Another RTO's people get 404.
    const staff = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await staff.page.goto(`${t.baseUrl}${path}`)
      await staff.page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).waitFor()
      await assertAccessible(staff.page)
    } finally {
      await staff.context.close()
    }
    const operator = await signIn(browser, t.baseUrl, 'operator')
    try {
      await operator.page.goto(`${t.baseUrl}${path}`)
      await operator.page
        .getByRole('table', { name: 'Failed outcomes by rule' })
        .getByRole('row', { name: /^DQTS10090/ })
        .waitFor()
      assert.equal(await operator.page.getByRole('button', { name: /Request an assessment/ }).count(), 0)
      const token = await operator.page.locator('input[name="_csrf"]').first().inputValue()
      const refused = await operator.context.request.post(`${t.baseUrl}/console/rto/90001/assessment`, {
        form: { _csrf: token, period: String(PERIOD), jurisdiction: 'NSW' },
        maxRedirects: 0,
      })
      assert.equal(refused.status(), 404)
      await assertAccessible(operator.page)
    } finally {
      await operator.context.close()
    }
    const other = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      assert.equal((await other.page.goto(`${t.baseUrl}${path}`))?.status(), 404)
    } finally {
      await other.context.close()
    }
  })

  it('RTO staff look up a held record by type and UID: its versions, latest submission, voided or not, and related records linking to theirs', async () => {
    await workers()
    const w = await world()
    await rto1.submitted(allOf(w))
    await rto1.submitted([{ segment: 'student', body: w.student }]) // a second version of the student
    await rto1.submitted([{ segment: 'subjectenrolment', body: voided(w.subjectEnrolment) }])
    const student = uidOf(w.student)
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Held records' }).click()
      await page.getByRole('heading', { level: 1, name: 'Held records' }).waitFor()
      await assertAccessible(page)

      // A UID that is not one: refused on the form, the control marked.
      await page.getByLabel('Record type').selectOption('Student')
      await page.getByLabel('UID').fill('not-a-uid')
      await page.getByRole('button', { name: 'Look up' }).click()
      await page
        .getByRole('alert')
        .getByText(/Enter the record’s UID/)
        .waitFor()
      assert.equal(await page.getByLabel('UID').getAttribute('aria-invalid'), 'true')
      await assertAccessible(page)

      await page.getByLabel('UID').fill(student)
      await page.getByRole('button', { name: 'Look up' }).click()
      await page.getByRole('heading', { level: 2, name: `Student ${student}` }).waitFor()
      const facts = String(await page.locator('dl.facts').textContent())
      assert.match(facts, /Held state\s*In submission/)
      assert.match(facts, /Versions\s*2\b/)
      assert.match(facts, /Latest submission\s*\d{1,2} \w{3} \d{4}, \d{1,2}:\d\d\W[ap]m \w+ \(NSW\)/)
      const related = page.getByRole('table', { name: /related records/ })
      const relatedText = String(await related.textContent())
      assert.match(relatedText, /ProgramEnrolment/)
      assert.doesNotMatch(relatedText, new RegExp(uidOf(w.subjectEnrolment)), 'a voided record is not related')
      await assertAccessible(page)
      await screenshot(page, 'held-record', 1250)

      // A related record's own page, and the voided one's.
      await related.getByRole('link', { name: new RegExp(`^ProgramEnrolment ${uidOf(w.programEnrolment)}`) }).click()
      await page.getByRole('heading', { level: 2, name: `ProgramEnrolment ${uidOf(w.programEnrolment)}` }).waitFor()
      assert.match(
        String(await page.getByRole('table', { name: /related records/ }).textContent()),
        new RegExp(student),
      )
      await page.goto(`${t.baseUrl}/console/rto/90001/records?type=SubjectEnrolment&uid=${uidOf(w.subjectEnrolment)}`)
      const voidedFacts = String(await page.locator('dl.facts').textContent())
      assert.match(voidedFacts, /Voided in submission/)
      assert.match(voidedFacts, /Voided because\s*remove_orphaned_record/)
      assert.match(voidedFacts, /Versions\s*2\b/)
      await page.getByText('Only a record in submission has related records.').waitFor()
      await assertAccessible(page)

      await page.setViewportSize({ width: 320, height: 640 })
      await page.goto(`${t.baseUrl}/console/rto/90001/records?type=Student&uid=${student}`)
      await assertNoHorizontalScroll(page)
    } finally {
      await context.close()
    }
    // Another RTO's people: 404 for RTO 90001's page; under their own RTO the record is not theirs.
    const other = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      assert.equal(
        (await other.page.goto(`${t.baseUrl}/console/rto/90001/records?type=Student&uid=${student}`))?.status(),
        404,
      )
      await other.page.goto(`${t.baseUrl}/console/rto/90002/records?type=Student&uid=${student}`)
      assert.match(String(await other.page.locator('dl.facts').textContent()), /Not found in submission/)
      await assertAccessible(other.page)
    } finally {
      await other.context.close()
    }
  })

  it('every role browses the reference datasets and a dataset’s current records, paged on the server', async () => {
    for (const person of ['staff-90001', 'operator']) {
      const { context, page } = await signIn(browser, t.baseUrl, person)
      try {
        await page.getByRole('link', { name: 'Reference data' }).click()
        await page.getByRole('heading', { level: 1, name: 'Reference data' }).waitFor()
        const languages = page.getByRole('row', { name: /^Language/ })
        assert.match(String(await languages.textContent()), /Classification\s*\d{3}/)
        await assertAccessible(page)
        if (person === 'operator') continue
        await screenshot(page, 'reference-data', 900)

        await languages.getByRole('link', { name: 'Language (ASCL 2016)' }).click()
        await page.getByRole('heading', { level: 1, name: 'Language (ASCL 2016)' }).waitFor()
        const records = page.getByRole('table', {
          name: /^Current records of Language \(ASCL 2016\) by code, page 1 of \d+/,
        })
        await records.waitFor()
        assert.equal(await records.locator('tbody tr').count(), 50)
        await assertAccessible(page)
        await page.getByRole('link', { name: 'Next page' }).click()
        const second = page.getByRole('table', { name: /page 2 of/ })
        await second.waitFor()
        assert.match(page.url(), /\/console\/reference-data\/language\?page=2$/)
        assert.match(String(await second.locator('tbody tr').first().textContent()), /(Active|Inactive)/)

        // A code list spelled as API words, with its AVETMISS codes and effective dates.
        await page.goto(`${t.baseUrl}/console/reference-data/gender`)
        const gender = String(await page.getByRole('table', { name: /Current records of/ }).textContent())
        assert.match(gender, /\bF\b|Female/)
        assert.match(gender, /Active/)
        assert.doesNotMatch(gender, /GMT|Invalid/, 'dates as written, YYYY-MM-DD')
        await page.setViewportSize({ width: 320, height: 640 })
        await page.reload()
        await assertNoHorizontalScroll(page)
        await assertAccessible(page)
        assert.equal((await page.goto(`${t.baseUrl}/console/reference-data/no-such-dataset`))?.status(), 404)
      } finally {
        await context.close()
      }
    }
  })
})
