// The web console end to end, in a real headless Chromium (Debian's chromium, driven by
// playwright-core) against a real running service: each demo person signs in through the real OpenID
// Connect flow (authorisation code with PKCE, the built-in provider of development mode), every page
// passes axe-core, RTO staff validate and submit a batch and read its failed results by rule (filtered,
// paged, as CSV), the authorised person declares, the operator reads any RTO without changing it, a
// form without its CSRF token is refused, another RTO's pages are 404, and an idle session expires.
// Skipped, saying what to install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { minimalUnitRecord, Reporter, startTestService, type TestService } from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  reloadUntil,
  screenshot,
  signIn,
} from './console/browser.ts'

const PERIOD = 202604 // the examples' activity (October 2026)

/** A service listening on a port known before it starts: the built-in provider's issuer names it. */
async function startConsoleService(env: Record<string, string> = {}): Promise<TestService> {
  return startTestService({ portKnownBeforeStart: true, env })
}

// The tests of this suite run in order and build on each other, as a reporting period does: the batch
// staff submit is the data the authorised person then declares.
describe('web console', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter
  let rto2: Reporter
  let goodBatch: string
  let failingBatch: string
  let otherRtoBatch: string

  before(async () => {
    ;[t, browser] = await Promise.all([startConsoleService(), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    rto2 = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
    const uploads = await minimalUnitRecord()
    goodBatch = await rto1.batchWith(uploads)
    const student = uploads.find((u) => u.segment === 'student')!
    const { emailAddressPrimary: _left, ...withoutEmail } = student.body
    failingBatch = await rto1.batchWith([{ segment: 'student', body: withoutEmail }]) // BRTS01180
    otherRtoBatch = await rto2.batchWith(uploads)
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('RTO staff sign in through OpenID Connect and see where each period stands', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001', true)
    try {
      assert.equal(new URL(page.url()).pathname, '/console/rto/90001/')
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
      await page.getByText('Signed in as Robin Staff, RTO staff for RTO 90001').waitFor()
      await assertAccessible(page)

      // By keyboard: the first Tab reaches the skip link, visibly focused; Enter moves to the content.
      await page.keyboard.press('Tab')
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement
        const style = getComputedStyle(element)
        return { text: element.textContent, outline: style.outlineStyle, left: element.getBoundingClientRect().left }
      })
      assert.deepEqual(
        { text: focused.text, visible: focused.outline !== 'none' && focused.left >= 0 },
        { text: 'Skip to main content', visible: true },
      )
      await page.keyboard.press('Enter')
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main')
    } finally {
      await context.close()
    }
  })

  it('RTO staff validate a batch, read its failed results by rule, filtered and as CSV, and are refused submitting it', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Batches', exact: true }).click()
      await page.getByRole('heading', { level: 1, name: 'Transaction batches' }).waitFor()
      await assertAccessible(page)
      await screenshot(page, 'batches')
      await page.getByRole('link', { name: new RegExp(`batch ${failingBatch}`) }).click()
      await page.getByRole('heading', { level: 1, name: `Batch ${failingBatch}` }).waitFor()
      await page.getByText('No validation of this batch has completed yet.').waitFor()
      await assertAccessible(page)

      await page.getByRole('button', { name: 'Validate the batch' }).click()
      await page.getByText('Validation requested.').waitFor()
      await reloadUntil(page, 'Failed results by rule')
      await assertAccessible(page)
      const ruleLink = page.getByRole('link', { name: 'BRTS01180', exact: true })
      await ruleLink.click()
      await page.waitForURL(/rule=BRTS01180/)
      await page.getByText(/failed results of rule BRTS01180/).waitFor()
      await page
        .getByRole('cell', { name: /^Mai Nguyen \(Student\)/ })
        .first()
        .waitFor()
      await assertAccessible(page)
      await screenshot(page, 'batch-failed-results')

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download these results as CSV' }).click(),
      ])
      const csv = await (await download.createReadStream()).toArray()
      const text = Buffer.concat(csv).toString('utf8')
      const [header, ...rows] = text.trim().split('\r\n')
      assert.match(
        header!,
        /^technicalRuleId,ruleId,validationMessageLevel,message,correctiveAction,resourceType,resourceUID/,
      )
      assert.ok(rows.length >= 1 && rows.every((row) => row.startsWith('BRTS01180,')), text)

      // Blocking failures: the page says what blocks the submit, and offers none.
      const blocks = page.getByRole('region', { name: 'Why this batch cannot be submitted' })
      assert.match(String(await blocks.textContent()), /errors? in 1 rule block submitting/)
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).count(), 0)
      await assertAccessible(page)

      // Readable at 320 px: nothing but the tables' own regions scrolls sideways.
      await page.setViewportSize({ width: 320, height: 640 })
      await page.reload()
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('RTO staff take a batch from validation to submitted', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${goodBatch}`)
      await page.getByRole('button', { name: 'Validate the batch' }).click()
      await reloadUntil(page, 'The latest validation found no failures.')
      await page.getByRole('button', { name: 'Submit the batch' }).click()
      await page.getByText('Submitted: 9 records are now held.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).count(), 0)
      await assertAccessible(page)
      await page.getByRole('link', { name: 'Reporting periods' }).click()
      const row = page.getByRole('row', { name: /2026 Q4 NSW/ })
      await row.waitFor()
      assert.match(String(await row.textContent()), /Not declared/)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('a form posted without its CSRF token, or with a wrong one, is refused', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      const url = `${t.baseUrl}/console/rto/90001/batches/NSW/${failingBatch}/validate`
      const without = await context.request.post(url, { form: {}, maxRedirects: 0 })
      assert.equal(without.status(), 403)
      assert.match(await without.text(), /Form refused/)
      const wrong = await context.request.post(url, { form: { _csrf: 'not-the-token' }, maxRedirects: 0 })
      assert.equal(wrong.status(), 403)
      // The same request from the page, with the page's token, is accepted.
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${failingBatch}`)
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const accepted = await context.request.post(url, { form: { _csrf: token }, maxRedirects: 0 })
      assert.equal(accepted.status(), 303)
    } finally {
      await context.close()
    }
  })

  it("an RTO's people are answered 404 for another RTO's pages and batches", async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      for (const path of [
        '/console/rto/90002/',
        '/console/rto/90002/batches',
        `/console/rto/90002/batches/NSW/${otherRtoBatch}`,
        `/console/rto/90001/batches/NSW/${otherRtoBatch}`, // the other RTO's batch under one's own RTO
      ]) {
        const response = await page.goto(`${t.baseUrl}${path}`)
        assert.equal(response?.status(), 404, path)
        await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor()
      }
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('the authorised person declares with the name and e-mail of the signed-in identity, and sees the history', async () => {
    await rto1.waitForReconciled(goodBatch)
    const assessed = await rto1.request('POST', `/vet-provider/v1/reporting-period/NSW/${PERIOD}/validate`)
    assert.equal(assessed.status, 201, assessed.text)
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      await page.getByRole('link', { name: 'Declarations' }).click()
      await page.getByRole('heading', { level: 1, name: 'Declarations' }).waitFor()
      await assertAccessible(page)
      await page.getByLabel('Reporting period').selectOption(String(PERIOD))
      await page.getByLabel('Jurisdiction').selectOption('NSW')
      await page.getByRole('button', { name: 'Review and declare' }).click()
      await page.getByRole('heading', { level: 1, name: 'Review and declare NSW, 2026 Q4' }).waitFor()
      // The assessment runs in the background: the declaration form appears once it is Validated.
      await reloadUntil(page, 'You declare as Alex Authorised (alex.authorised@rto-90001.example), from your sign-in.')
      await assertAccessible(page)

      // Not accepted: the box left unticked is a readable error, nothing is saved.
      await page.getByRole('button', { name: /^Declare NSW/ }).click()
      await page.getByRole('alert').getByText('Acceptance: must be true').waitFor()
      assert.equal(await page.getByLabel(/I am authorised to act for RTO 90001/).getAttribute('aria-invalid'), 'true')
      await assertAccessible(page)

      await page.getByLabel(/I am authorised to act for RTO 90001/).check()
      await page.getByRole('button', { name: /^Declare NSW/ }).click()
      await page.getByText(`Declaration saved for reporting period ${PERIOD} and jurisdiction NSW`).waitFor()
      const history = page.getByRole('table', { name: 'Declarations, newest first' })
      assert.match(String(await history.textContent()), /Alex Authorised \(alex\.authorised@rto-90001\.example\)/)
      await assertAccessible(page)
      await screenshot(page, 'declarations')

      await page.getByRole('link', { name: 'Reporting periods' }).click()
      assert.match(String(await page.getByRole('row', { name: /2026 Q4 NSW/ }).textContent()), /Declared/)
      await screenshot(page, 'reporting-periods')
    } finally {
      await context.close()
    }
  })

  it('RTO staff do not get the declaration form', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/declarations`)
      await page.getByText('Only the RTO’s authorised person can make a declaration.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Declare' }).count(), 0)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it("the operator reads every RTO's pages and changes nothing", async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('heading', { level: 1, name: 'RTOs' }).waitFor()
      await assertAccessible(page)
      await page.getByRole('link', { name: 'RTO 90002' }).click()
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
      await page.goto(`${t.baseUrl}/console/rto/90002/batches/NSW/${otherRtoBatch}`)
      await page.getByRole('heading', { level: 1, name: `Batch ${otherRtoBatch}` }).waitFor()
      assert.equal(await page.getByRole('button', { name: 'Validate the batch' }).count(), 0)
      await assertAccessible(page)
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const refused = await context.request.post(
        `${t.baseUrl}/console/rto/90002/batches/NSW/${otherRtoBatch}/validate`,
        { form: { _csrf: token }, maxRedirects: 0 },
      )
      assert.equal(refused.status(), 404)
      const status = await rto2.request('GET', rto2.batchPath(otherRtoBatch, '/validate'))
      assert.equal(status.status, 404, 'no validation was requested')
    } finally {
      await context.close()
    }
  })

  it('signing out ends the console session and, when asked, the provider session', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    // The session's cookie as it was before signing out, as if copied: it serves no page afterwards.
    const copied = await context.cookies(`${t.baseUrl}/console/`)
    try {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { level: 1, name: 'Sign out of the demo identity provider too?' }).waitFor()
      await assertAccessible(page)
      await page.getByRole('button', { name: 'Yes, sign out' }).click()
      await page.getByRole('heading', { level: 1, name: 'You have signed out' }).waitFor()
      await assertAccessible(page)
      await page.goto(`${t.baseUrl}/console/rto/90001/`)
      await page.getByRole('link', { name: 'Sign in' }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/console/')
      // Signing in again asks who you are: the provider's session ended too.
      await page.getByRole('link', { name: 'Sign in' }).click()
      await page.waitForURL(/\/console\/idp-sign-in\//)
    } finally {
      await context.close()
    }
    const replayed = await browser.newContext()
    try {
      await replayed.addCookies(copied)
      const page = await replayed.newPage()
      await page.goto(`${t.baseUrl}/console/rto/90001/`)
      assert.equal(new URL(page.url()).pathname, '/console/')
      await page.getByRole('link', { name: 'Sign in' }).waitFor()
    } finally {
      await replayed.close()
    }
  })

  it('an operator sees who is signed in and ends a person’s session: their next page asks them to sign in', async () => {
    const person = await signIn(browser, t.baseUrl, 'declarer-90002')
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('link', { name: 'Sessions' }).click()
      await page.getByRole('heading', { level: 1, name: 'Console sessions' }).waitFor()
      const row = page.getByRole('row', { name: /Jo Authorised/ })
      assert.match(String(await row.textContent()), /Authorised person\s*90002/)
      assert.match(
        String(
          await page
            .getByRole('row', { name: /Casey Operator/ })
            .first()
            .textContent(),
        ),
        /this session/,
      )
      await assertAccessible(page)
      await screenshot(page, 'sessions')

      // Before: the person's pages are served.
      await person.page.reload()
      await person.page.getByText('Signed in as Jo Authorised').waitFor()

      await row.getByRole('button', { name: /End the session of Jo Authorised/ }).click()
      await page
        .getByRole('status')
        .getByText(/The session is ended/)
        .waitFor()
      assert.equal(await page.getByRole('row', { name: /Jo Authorised/ }).count(), 0)

      // After: the same browser's next page is the sign-in.
      await person.page.reload()
      assert.equal(new URL(person.page.url()).pathname, '/console/')
      await person.page.getByRole('link', { name: 'Sign in' }).waitFor()

      // RTO people have no such page, nor may they end a session.
      const token = await person.page.locator('input[name="_csrf"]').count()
      assert.equal(token, 0, 'signed out: no form')
    } finally {
      await person.context.close()
      await context.close()
    }
    const rtoPerson = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      assert.equal((await rtoPerson.page.goto(`${t.baseUrl}/console/sessions`))?.status(), 404)
      await rtoPerson.page.goto(`${t.baseUrl}/console/rto/90001/`)
      const token = await rtoPerson.page.locator('input[name="_csrf"]').first().inputValue()
      const end = await rtoPerson.context.request.post(`${t.baseUrl}/console/sessions/anything/end`, {
        form: { _csrf: token },
        maxRedirects: 0,
      })
      assert.equal(end.status(), 404)
    } finally {
      await rtoPerson.context.close()
    }
  })

  it('the pages print without navigation or forms', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${failingBatch}`)
      await page.emulateMedia({ media: 'print' })
      assert.equal(await page.getByRole('navigation', { name: 'Console' }).isVisible(), false)
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).isVisible(), false)
      assert.equal(await page.getByRole('heading', { level: 1 }).isVisible(), true)
    } finally {
      await context.close()
    }
  })
})

describe('web console sessions', { skip: chromiumMissing() ?? false }, () => {
  // Long enough for every step of signing in (each renews the session) on a loaded machine.
  const IDLE_SECONDS = 8
  let t: TestService
  let browser: Browser

  before(async () => {
    ;[t, browser] = await Promise.all([
      startConsoleService({ CONSOLE_SESSION_IDLE_SECONDS: String(IDLE_SECONDS) }),
      launchChromium(),
    ])
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('a session is renewed by each request, and over once left idle longer than CONSOLE_SESSION_IDLE_SECONDS', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      assert.equal(new URL(page.url()).pathname, '/console/rto/90002/')
      // Used every few seconds for longer than the timeout: each request renews the session.
      for (let i = 0; i < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, (IDLE_SECONDS / 3) * 1000))
        await page.reload()
        await page.getByText('Signed in as Sam Staff').waitFor()
      }
      // Then left alone for longer than the timeout: signed out.
      await new Promise((resolve) => setTimeout(resolve, (IDLE_SECONDS + 1.5) * 1000))
      await page.reload()
      assert.equal(new URL(page.url()).pathname, '/console/')
      await page.getByRole('link', { name: 'Sign in' }).waitFor()
      assert.equal(await page.getByText('Signed in as').count(), 0)
    } finally {
      await context.close()
    }
  })
})
