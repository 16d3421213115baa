// The operator's desk (issue 32 item 8), end to end in Debian's Chromium against a real service, each
// page checked by axe-core: every RTO that holds data or has a client, found by code or client id and
// paged; the collection calendar, whose extension the RTO's task list and the API's due date follow;
// failed and slow jobs with their error; and none of it for RTO people. Skipped, saying what to
// install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { sql } from 'kysely'
import { addMonths, lastDayOf } from '../src/domain/reporting-period.ts'
import { minimalUnitRecord, PERIOD, Reporter, startTestService, V1, type TestService } from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  screenshot,
  signIn,
} from './console/browser.ts'

describe("web console: the operator's desk", { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter

  before(async () => {
    ;[t, browser] = await Promise.all([startTestService({ portKnownBeforeStart: true }), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    await rto1.submitted(await minimalUnitRecord()) // RTO 90001 reports NSW 202604
    // RTOs that hold submitted data and have no API client (as the synthetic seed's 91001 does): their
    // submission marks and the latest one per jurisdiction, as holdings keeps them (recordReportingPeriods),
    // planted directly; 91001 and 55 more to need a second page.
    const db = t.service.database.db
    for (const rto of ['91001', ...Array.from({ length: 55 }, (_, i) => `95${String(i).padStart(3, '0')}`)]) {
      await sql`
        INSERT INTO reporting_period_submission (rto_id, jurisdiction, reporting_period, last_submitted_at, last_submission_seq)
        VALUES (${rto}, 'NSW', ${PERIOD}, now(), 1)`.execute(db)
      await sql`
        INSERT INTO rto_jurisdiction_submission (rto_id, jurisdiction, last_submitted_at)
        VALUES (${rto}, 'NSW', now())`.execute(db)
    }
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('All RTOs lists every RTO that holds data or has a client, found by code or client id, a page at a time', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('heading', { level: 1, name: 'RTOs' }).waitFor()
      await page.getByText(/^58 RTOs, by code\./).waitFor() // 90001 and 90002 (demo clients), 91001, 95000 to 95054
      assert.match(
        String(await page.getByRole('row', { name: /RTO 90002/ }).textContent()),
        /demo-rto-2.*Holds no data/s,
      )
      assert.match(String(await page.getByRole('row', { name: /RTO 91001/ }).textContent()), /None/)
      await assertAccessible(page)
      await page.getByRole('link', { name: 'Next page' }).click()
      await page.getByRole('caption').getByText('RTOs, page 2 of 2').waitFor()
      assert.equal(await page.getByRole('row', { name: /RTO 95054/ }).count(), 1)
      assert.equal(await page.getByRole('row', { name: /RTO 90001/ }).count(), 0)

      await page.getByLabel('RTO code or SMS client id').fill('9100')
      await page.getByRole('button', { name: 'Find' }).click()
      await page.getByText(/^1 RTO match “9100”/).waitFor()
      await page.getByRole('link', { name: 'RTO 91001' }).click()
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/console/rto/91001/')

      await page.goto(`${t.baseUrl}/console/?q=demo-rto-1`)
      assert.equal(await page.getByRole('row').count(), 2, 'a header row and RTO 90001')
      assert.match(String(await page.getByRole('row', { name: /RTO 90001/ }).textContent()), /demo-rto-1/)
      await page.goto(`${t.baseUrl}/console/?q=nobody`)
      await page.getByText('No RTO matches “nobody”.').waitFor()
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it("the operator extends an RTO's due date; its task list and the API's due date follow", async () => {
    const rule = addMonths(lastDayOf(PERIOD), 1) // 2027-01-31
    const apiDueDate = async () => {
      const response = await rto1.request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
      assert.equal(response.status, 200, response.text)
      return response.json.results[0].declarationDueDate as string
    }
    assert.equal(await apiDueDate(), rule)

    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('link', { name: 'Collection calendar' }).click()
      await page.getByRole('heading', { level: 1, name: 'The collection calendar' }).waitFor()
      const row = page
        .getByRole('table', { name: /Declarations due in NSW/ })
        .getByRole('row', { name: new RegExp(`\\(${PERIOD}\\)`) })
      assert.match(String(await row.textContent()), /31 January 2027.*By the rule/s)
      await page.getByText('No RTO has an extension in NSW.').waitFor()
      await assertAccessible(page)
      // Without the form's token: refused, nothing granted.
      const forged = await context.request.post(`${t.baseUrl}/console/calendar/extensions`, {
        form: { jurisdiction: 'NSW', period: String(PERIOD), rto: '90001', dueDate: '2027-06-30', reason: 'x' },
        maxRedirects: 0,
      })
      assert.equal(forged.status(), 403)
      assert.equal(await apiDueDate(), rule)

      // Refused fields: the error summary at the top, focused, linking to each field; inline messages.
      const extension = page.locator('form[action="/console/calendar/extensions"]')
      await extension.getByLabel('RTO code').fill('90001')
      await extension.getByLabel('Reporting period in NSW').selectOption(String(PERIOD))
      await extension.getByLabel('New due date').fill('2027-01-15')
      await extension.getByRole('button', { name: 'Give the extension' }).click()
      const summary = page.getByRole('alert').filter({ hasText: 'There is a problem' })
      await summary.waitFor()
      assert.ok(await summary.evaluate((element) => element === document.activeElement), 'the summary has the focus')
      assert.deepEqual(await summary.getByRole('link').allTextContents(), [
        'Enter the reason for the due date',
        `An extension must be later than the period’s due date (${rule})`,
      ])
      const date = page.locator('#ext-due-date')
      assert.equal(await date.getAttribute('aria-invalid'), 'true')
      assert.match(String(await date.getAttribute('aria-describedby')), /ext-due-date-error/)
      assert.match(String(await page.locator('#ext-due-date-error').textContent()), /must be later/)
      assert.equal(await date.inputValue(), '2027-01-15', 'what was typed is kept')
      await assertAccessible(page)
      await summary.getByRole('link', { name: 'Enter the reason for the due date' }).click()
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'ext-reason')

      // The keyboard alone: type the reason and a later date, then submit with Enter.
      await page.keyboard.type('Flood at the main campus')
      await date.fill('2027-03-15')
      await date.press('Enter')
      await page
        .getByRole('status')
        .getByText(`RTO 90001’s declaration for NSW ${PERIOD} is now due on 2027-03-15.`)
        .waitFor()
      const granted = String(await page.getByRole('row', { name: /RTO 90001/ }).textContent())
      assert.match(granted, /15 March 2027.*Flood at the main campus.*Casey Operator/s)
      await assertAccessible(page)
      await screenshot(page, 'calendar')
      await page.setViewportSize({ width: 320, height: 640 })
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
      // The collection at a glance shows the RTO's extended due date.
      await page.goto(`${t.baseUrl}/console/collection?period=${PERIOD}&jurisdiction=NSW`)
      assert.match(String(await page.getByRole('row', { name: /RTO 90001/ }).textContent()), /2027-03-15 extended/)
    } finally {
      await context.close()
    }

    // The API's due date, and the RTO's own task list, follow the extension.
    assert.equal(await apiDueDate(), '2027-03-15')
    const staff = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await staff.page.goto(`${t.baseUrl}/console/rto/90001/?period=${PERIOD}&jurisdiction=NSW`)
      // The extension is said as one, with the date it replaced (the rule's, the same year: no year).
      await staff.page.getByText(/^Due on 15 March 2027 \(extended from 31 January\): \d+ days left\.$/).waitFor()
      await assertAccessible(staff.page)
    } finally {
      await staff.context.close()
    }

    // A period's own due date (for RTOs without an extension), then back to the rule.
    const { context: again, page: operator } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await operator.goto(`${t.baseUrl}/console/calendar?jurisdiction=NSW`)
      const form = operator.locator('form[action="/console/calendar/due-date"]')
      await form.getByLabel('Reporting period in NSW').selectOption(String(PERIOD))
      await form.getByLabel('Due date').fill('2027-02-14')
      await form.getByLabel('Reason').fill('Public holidays')
      await form.getByRole('button', { name: 'Set the due date' }).click()
      await operator
        .getByRole('status')
        .getByText(/now due on 2027-02-14, for every RTO without an extension/)
        .waitFor()
      const row = operator
        .getByRole('table', { name: /Declarations due in NSW/ })
        .getByRole('row', { name: new RegExp(`\\(${PERIOD}\\)`) })
      assert.match(String(await row.textContent()), /14 February 2027.*Public holidays/s)
      assert.equal(await apiDueDate(), '2027-03-15', 'the extension still applies to RTO 90001')
      const rto2 = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
      const other = await rto2.request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
      assert.equal(other.json.results[0].declarationDueDate, '2027-02-14')
      await row.getByRole('button', { name: `Use the rule again for ${PERIOD}` }).click()
      await operator
        .getByRole('status')
        .getByText(`Declarations for NSW ${PERIOD} are due by the rule again.`)
        .waitFor()
      const back = await rto2.request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
      assert.equal(back.json.results[0].declarationDueDate, rule)
      await operator.getByRole('button', { name: `Withdraw the extension of RTO 90001 for ${PERIOD}` }).click()
      await operator
        .getByRole('status')
        .getByText(/extension for NSW 202604 is withdrawn/)
        .waitFor()
      assert.equal(await apiDueDate(), rule)
      await assertAccessible(operator)
    } finally {
      await again.close()
    }
  })

  it('the jobs page lists failed jobs with their error and slow jobs, filtered', async () => {
    const db = t.service.database.db
    const failed = await sql<{ id: string }>`
      INSERT INTO pgboss.job (name, data, state, retry_limit, retry_count, started_on, completed_on, output)
      VALUES ('assess-reporting-period', '{"rto":"95001"}', 'failed', 2, 2, now(), now(), '{"message":"assessment rule DQTS10010 timed out"}')
      RETURNING id::text AS id`.execute(db)
    const slow = await sql<{ id: string }>`
      INSERT INTO pgboss.job (name, data, state, retry_limit, retry_count, started_on, output)
      VALUES ('validate-batch', '{"rto":"95002"}', 'active', 5, 1, now() - interval '10 minutes', '{"message":"worker lost"}')
      RETURNING id::text AS id`.execute(db)
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.goto(`${t.baseUrl}/console/jobs`)
      const failedTable = page.getByRole('table', { name: /Failed jobs of assess-reporting-period/ })
      assert.match(
        String(await failedTable.getByRole('row', { name: new RegExp(failed.rows[0]!.id) }).textContent()),
        /3.*assessment rule DQTS10010 timed out.*Retry/s,
      )
      const slowTable = page.getByRole('table', { name: /Jobs running for more than 5 minutes/ })
      assert.match(
        String(await slowTable.getByRole('row', { name: new RegExp(slow.rows[0]!.id) }).textContent()),
        /validate-batch.*1[01] min.*2.*worker lost/s,
      )
      await assertAccessible(page)

      await page.getByLabel('Show', { exact: true }).selectOption('failed')
      await page.getByRole('button', { name: 'Show', exact: true }).click()
      await page.waitForURL(/show=failed/)
      assert.equal(await page.getByRole('heading', { name: 'Slow jobs' }).count(), 0)
      assert.equal(await page.getByRole('heading', { name: 'Failed jobs' }).count(), 1)

      await page.goto(`${t.baseUrl}/console/jobs?show=slow&minutes=30`)
      assert.equal(await page.getByRole('heading', { name: 'Failed jobs' }).count(), 0)
      await page.getByText('No job has been running for more than 30 minutes.').waitFor()
      await assertAccessible(page)
    } finally {
      await context.close()
      await sql`DELETE FROM pgboss.job WHERE id IN (${failed.rows[0]!.id}::uuid, ${slow.rows[0]!.id}::uuid)`.execute(db)
    }
  })

  it("RTO people get none of the desk's pages or forms", async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      for (const path of ['/console/calendar', '/console/jobs?show=slow', '/console/collection', '/console/clients'])
        assert.equal((await page.goto(`${t.baseUrl}${path}`))?.status(), 404, path)
      // The front page of an RTO person is their own RTO's, never the list of RTOs.
      await page.goto(`${t.baseUrl}/console/?q=9100`)
      assert.equal(new URL(page.url()).pathname, '/console/rto/90001/')
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const extend = await context.request.post(`${t.baseUrl}/console/calendar/extensions`, {
        form: {
          _csrf: token,
          jurisdiction: 'NSW',
          period: String(PERIOD),
          rto: '90001',
          dueDate: '2027-06-30',
          reason: 'x',
        },
        maxRedirects: 0,
      })
      assert.equal(extend.status(), 404)
      const response = await rto1.request('GET', `${V1}/declaration?reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`)
      assert.equal(response.json.results[0].declarationDueDate, addMonths(lastDayOf(PERIOD), 1), 'nothing granted')
    } finally {
      await context.close()
    }
  })
})
