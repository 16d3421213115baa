// Risky submits guarded and a sign-off worth signing (issue 32, items 3 and 4), end to end in Debian's
// Chromium (playwright-core) against a real running service, each page checked by axe-core at desktop
// size and at 390 px: a batch with blocking errors says what blocks and offers no submit; a batch a NAT
// import left lines out of is submitted only once that is acknowledged; RTO staff request the data
// quality assessment and cannot declare; the authorised person reviews each warning rule (count,
// records, a link to every one), acknowledges it with an explanation (keyboard alone), sees what they
// declare with, and declares; the explanation is kept with the declaration; declaring again says what
// it replaces and asks to confirm (JavaScript off). Skipped, saying what to install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser, BrowserContext, Page } from 'playwright-core'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources.
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import {
  allOf,
  call,
  PERIOD,
  Reporter,
  startTestService,
  V1,
  world,
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

/** The minimal unit record with a student born in 2022: the assessment's implausible age (DQTS10090, a Warning). */
const implausibleStudent = (w: Awaited<ReturnType<typeof world>>): Upload[] => [
  { segment: 'student', body: { ...w.student, dateOfBirth: '2022-01-01' } },
  ...allOf(w).slice(1),
]

const SIGN_OFF = `/console/rto/90001/declare?period=${PERIOD}&jurisdiction=NSW`
const EXPLANATION = 'The student is a child actor enrolled with a guardian; the date of birth is right.'

/** axe with 0 violations at desktop size and at 390 px, where nothing but a table's own region scrolls sideways. */
async function accessibleAtBothSizes(page: Page): Promise<void> {
  await assertAccessible(page)
  const desktop = page.viewportSize()
  await page.setViewportSize({ width: 390, height: 844 })
  await assertNoHorizontalScroll(page)
  await assertAccessible(page)
  if (desktop) await page.setViewportSize(desktop)
}

/** A form's CSRF token as the page gives it. */
const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue()

/** Signs in with JavaScript off: the console's pages and forms work without it. */
async function signInWithoutScript(browser: Browser, baseUrl: string, username: string) {
  const context: BrowserContext = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto(`${baseUrl}/console/`)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill('demo')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText('Signed in as').waitFor()
  return { context, page }
}

describe('web console: risky submits guarded, a sign-off worth signing', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter

  before(async () => {
    ;[t, browser] = await Promise.all([startTestService({ portKnownBeforeStart: true }), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('a batch with blocking errors says what blocks it, linked to the failures, and offers no submit', async () => {
    const w = await world()
    const { emailAddressPrimary: _left, ...withoutEmail } = w.student
    const batch = await rto1.batchWith([{ segment: 'student', body: withoutEmail }]) // BRTS01180, an Error
    await rto1.validate(batch)
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}`)
      const blocks = page.getByRole('region', { name: 'Why this batch cannot be submitted' })
      await blocks.waitFor()
      assert.match(String(await blocks.textContent()), /1 error in 1 rule block submitting/)
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).count(), 0, 'no submit at all')
      // Validating again is what the page offers, as its primary button.
      const validate = page.getByRole('button', { name: 'Validate the batch again' })
      assert.equal(await validate.getAttribute('class'), 'button')
      await accessibleAtBothSizes(page)
      // The rule's link leads to its failures.
      await blocks.getByRole('link', { name: 'Rule BRTS01180: 1 error' }).click()
      await page.getByRole('table', { name: /failed results of rule BRTS01180/ }).waitFor()
      // A submit posted anyway (a page kept open from before) is refused, in words.
      const refused = await context.request.post(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}/submit`, {
        form: { _csrf: await csrfOf(page) },
      })
      assert.match(await refused.text(), /blocking failures \(errors\)/)
      assert.equal((await rto1.request('GET', rto1.batchPath(batch))).json.status, 'NotSubmitted')
    } finally {
      await context.close()
    }
  })

  it('a NAT batch with dropped lines is submitted only after acknowledging what was left out', async () => {
    const set = generateNatFileSet({
      activities: 3,
      seed: 'console-sign-off',
      year: 2026,
      asOf: '2026-06-30',
      rtoCode: '90001',
      referenceData: await readSeedReferenceData(),
      faults: [{ kind: 'unknown-code', count: 1 }],
    })
    const imported = await call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
      token: rto1.token,
      body: natZipBytes(set.entries) as BodyInit,
      headers: { 'content-type': 'application/zip' },
    })
    assert.equal(imported.status, 201, imported.text)
    assert.equal(imported.json.natProblemCount, 1)
    const batch = imported.json.transactionBatchToken as string
    const vic = new Reporter(t.baseUrl, rto1.token, 'VIC')
    const validated = await vic.validate(batch)
    assert.deepEqual(
      validated.results.filter((r) => r.validationMessageLevel === 'Error'),
      [],
      'ready to submit but for what the import left out',
    )
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/VIC/${batch}`)
      const acknowledge = page.getByLabel('Submit without the 1 NAT problem the import left out', { exact: false })
      await acknowledge.waitFor()
      assert.equal(await acknowledge.getAttribute('required'), '')
      // The box names what was left out: the problem itself, at its NAT file and line.
      const described = await page.locator('#dropped-lines').textContent()
      assert.match(String(described), /NAT\d{5}[^:]* line \d+/)
      await accessibleAtBothSizes(page)
      // The browser does not send the form unticked; sent anyway (the box's check removed), it is refused.
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      assert.equal((await vic.request('GET', vic.batchPath(batch))).json.status, 'NotSubmitted')
      await acknowledge.evaluate((box) => box.removeAttribute('required'))
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      await page
        .getByRole('alert')
        .getByText(/Not submitted: the NAT import that made this batch left out 1 NAT problem/)
        .waitFor()
      assert.equal((await vic.request('GET', vic.batchPath(batch))).json.status, 'NotSubmitted')
      // Acknowledged: submitted, the form saying what it is doing while the service works.
      await page.getByLabel('Submit without the 1 NAT problem the import left out', { exact: false }).check()
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      await page
        .getByRole('status')
        .getByText(/Submitted: \d+ records are now held\./)
        .waitFor()
      assert.equal((await vic.request('GET', vic.batchPath(batch))).json.status, 'Submitted')
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('RTO staff request the data quality assessment, read the review, and cannot declare', async () => {
    await rto1.submitted(implausibleStudent(await world()))
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/assessment?period=${PERIOD}&jurisdiction=NSW`)
      await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).click()
      await page
        .getByRole('status')
        .getByText(/requested/)
        .waitFor()
      // The page's status follows the run (its live status script), until it is Validated.
      await page.locator('#assessment-status', { hasText: 'Validated' }).waitFor({ timeout: 60_000 })
      // The assessment page leads to the declaration.
      await page.getByRole('link', { name: 'Review the warnings and declare NSW 2026 Q4' }).click()
      await page.getByRole('heading', { level: 1, name: 'Review and declare NSW, 2026 Q4' }).waitFor()
      await page.getByRole('heading', { name: /^Rule DQTS10090: 1 record/ }).waitFor()
      await page.getByText('Only the RTO’s authorised person declares.').waitFor()
      assert.equal(await page.getByRole('button', { name: /Acknowledge|Declare/ }).count(), 0)
      const summary = String(await page.locator('#summary').textContent())
      assert.match(summary, /requested by staff-90001, in the console/)
      assert.match(summary, /1 warning rule, 0 acknowledged/)
      await accessibleAtBothSizes(page)
      // Posted anyway: 404, as every change a role may not make; nothing kept.
      const token = await csrfOf(page)
      for (const path of ['/declare/acknowledge', '/declare']) {
        const refused = await context.request.post(`${t.baseUrl}/console/rto/90001${path}`, {
          form: { _csrf: token, period: String(PERIOD), jurisdiction: 'NSW', rule: 'DQTS10090', accept: 'yes' },
          maxRedirects: 0,
        })
        assert.equal(refused.status(), 404, path)
      }
      await page.reload()
      assert.match(String(await page.locator('#summary').textContent()), /0 acknowledged/)
    } finally {
      await context.close()
    }
  })

  it('the authorised person reviews, acknowledges with an explanation and declares, with the keyboard alone', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      await page.goto(`${t.baseUrl}${SIGN_OFF}`)
      const rule = page.getByRole('region', { name: /^Rule DQTS10090/ })
      assert.match(String(await rule.textContent()), /Not acknowledged/)
      // The records behind it, by name, and a way to every one.
      assert.ok((await rule.getByRole('link', { name: /\(Student\)/ }).count()) >= 1, 'an example names its student')
      await rule.getByRole('link', { name: 'Every record of rule DQTS10090 (1)' }).waitFor()
      // No declare button while a warning is left; a declaration posted anyway is refused, in words.
      await page.getByText('Acknowledge each warning rule above before declaring: 1 of 1 left.').waitFor()
      assert.equal(await page.getByRole('button', { name: /^Declare/ }).count(), 0)
      const early = await context.request.post(`${t.baseUrl}/console/rto/90001/declare`, {
        form: {
          _csrf: await csrfOf(page),
          period: String(PERIOD),
          jurisdiction: 'NSW',
          declarationType: 'Declaration',
          accept: 'yes',
        },
      })
      assert.equal(early.status(), 409)
      assert.match(await early.text(), /Not declared: 1 warning rule is not acknowledged yet \(DQTS10090\)/)
      await accessibleAtBothSizes(page)

      // By keyboard: the explanation, its button, then the acceptance and the declaration.
      await page.getByLabel('Explanation of rule DQTS10090').focus()
      await page.keyboard.type(EXPLANATION)
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      await page.getByRole('status').getByText('Rule DQTS10090 acknowledged.').waitFor()
      assert.match(String(await rule.textContent()), new RegExp(`Acknowledged by Alex Authorised on .*${EXPLANATION}`))
      const declaringWith = page.getByRole('table', { name: 'The warnings you declare with' })
      assert.match(String(await declaringWith.textContent()), new RegExp(`DQTS10090\\s*1\\s*${EXPLANATION}`))
      assert.match(String(await page.locator('#summary').textContent()), /1 warning rule, 1 acknowledged/)
      await accessibleAtBothSizes(page)
      await screenshot(page, 'sign-off-review')
      // The task list follows: the warnings are reviewed, the declaration is next.
      const tasks = await context.newPage()
      await tasks.goto(`${t.baseUrl}/console/rto/90001/?period=${PERIOD}&jurisdiction=NSW`)
      const warningsTask = tasks.locator('.task').filter({ hasText: 'Look at the warnings' })
      assert.match(String(await warningsTask.textContent()), /Every warning rule acknowledged \(1\)\.[\s\S]*Completed/)
      await tasks.close()
      await page.getByLabel(/I am authorised to act for RTO 90001/).focus()
      await page.keyboard.press('Space')
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      await page.getByText(`Declaration saved for reporting period ${PERIOD} and jurisdiction NSW.`).waitFor()

      // The explanation is kept with the declaration.
      const history = page.getByRole('table', { name: 'Declarations, newest first' })
      const row = history.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Current', exact: true }) })
      assert.match(String(await row.textContent()), new RegExp(`DQTS10090 \\(1\\): “${EXPLANATION}”`))
      await accessibleAtBothSizes(page)
    } finally {
      await context.close()
    }
  })

  it('declaring again says what it replaces and asks to confirm, with JavaScript off', async () => {
    const { context, page } = await signInWithoutScript(browser, t.baseUrl, 'declarer-90001')
    try {
      await page.goto(`${t.baseUrl}${SIGN_OFF}`)
      // The acknowledgements the declaration relies on are kept as they were made.
      await page.getByText('A declaration already relies on this assessment').waitFor()
      assert.equal(await page.getByRole('button', { name: /Acknowledge/ }).count(), 0)
      const replaces = page.getByLabel(
        // Said in the console's zone (no script here to say it in the browser's): 27 Nov 2026, 7:54 pm AEDT.
        /This replaces the declaration made on \d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2}\s[ap]m\sAE[SD]T by Alex Authorised: I confirm it is superseded/,
      )
      await replaces.waitFor()
      // Not confirmed (the required box's check removed, as an old page would post): refused, nothing saved.
      const refused = await context.request.post(`${t.baseUrl}/console/rto/90001/declare`, {
        form: {
          _csrf: await csrfOf(page),
          period: String(PERIOD),
          jurisdiction: 'NSW',
          declarationType: 'Declaration',
          accept: 'yes',
        },
      })
      assert.equal(refused.status(), 400)
      assert.match(await refused.text(), /Confirm that this one replaces it/)
      await replaces.check()
      await page.getByLabel(/I am authorised to act for RTO 90001/).check()
      await page.getByRole('button', { name: 'Declare NSW 2026 Q4' }).click()
      await page.getByText(`Declaration saved for reporting period ${PERIOD} and jurisdiction NSW.`).waitFor()
      const rows = page.getByRole('table', { name: 'Declarations, newest first' }).getByRole('row')
      const withState = (state: string) => rows.filter({ has: page.getByRole('cell', { name: state, exact: true }) })
      assert.equal(await withState('Superseded').count(), 1)
      assert.equal(await withState('Current').count(), 1)
      // Both rely on the same assessment: each keeps the explanation.
      assert.equal(await rows.filter({ hasText: EXPLANATION }).count(), 2)
    } finally {
      await context.close()
    }
  })
})
