// The RTO's landing page is what is left to do for a reporting period and jurisdiction (issue 32, item
// 5): a task list in the GOV.UK pattern (send the data, pass validation, run the assessment, look at
// the warnings, declare), each task's state read from the service and linked to where it is done, with
// the declaration's due date and the days left. End to end in Debian's Chromium against a real running
// service, each page checked by axe-core; skipped, saying what to install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import { declarationDueDate } from '../src/modules/declarations/index.ts'
import { utcToday } from '../src/domain/reporting-period.ts'
import { minimalUnitRecord, PERIOD, Reporter, startTestService, type TestService } from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  reloadUntil,
  signIn,
} from './console/browser.ts'

/** Each task of the list as a person reads it: its name and its state. */
async function tasksOf(page: Page): Promise<Record<string, string>> {
  const tasks: Record<string, string> = {}
  for (const task of await page.locator('.task-list .task').all()) {
    const name = (await task.locator('.task-name > a, .task-name > span').textContent())?.trim() ?? ''
    tasks[name] = (await task.locator('.task-status').textContent())?.trim() ?? ''
  }
  return tasks
}

describe('web console: what is left to do (the RTO’s task list)', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter
  const home = () => `${t.baseUrl}/console/rto/90001/?period=${PERIOD}&jurisdiction=NSW`

  before(async () => {
    ;[t, browser] = await Promise.all([startTestService({ portKnownBeforeStart: true }), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('the task list follows the period from nothing sent to declared, each task linked to where it is done', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      // Signing in lands on the task list.
      assert.equal(new URL(page.url()).pathname, '/console/rto/90001/')
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
      await page.goto(home())
      await page.getByRole('heading', { level: 2, name: 'NSW, 2026 Q4' }).waitFor()
      const due = declarationDueDate(PERIOD, 'Declaration')
      const daysLeft = Math.round((Date.parse(`${due}T00:00:00Z`) - Date.parse(`${utcToday()}T00:00:00Z`)) / 86_400_000)
      const dueWords = new Date(`${due}T00:00:00Z`).toLocaleDateString('en-AU', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      })
      await page
        .getByText(
          daysLeft >= 0
            ? `Due on ${dueWords}: ${daysLeft} ${daysLeft === 1 ? 'day' : 'days'} left.`
            : `The declaration was due on ${dueWords}`,
        )
        .waitFor()
      assert.deepEqual(await tasksOf(page), {
        'Send your data': 'Not yet started',
        'Fix what failed validation': 'Cannot start yet',
        'Run the data quality assessment': 'Cannot start yet',
        'Look at the warnings': 'Cannot start yet',
        'Declare the period': 'Cannot start yet',
      })
      await page.getByText('You have completed 0 of 5 tasks.').waitFor()
      // Tasks that cannot start are not links; the first one leads to where data is sent.
      assert.equal(await page.getByRole('link', { name: 'Declare the period' }).count(), 0)
      const send = page.getByRole('link', { name: 'Send your data' })
      assert.equal(
        new URL(await send.evaluate((a) => (a as HTMLAnchorElement).href)).pathname,
        '/console/rto/90001/nat-import',
      )
      await assertAccessible(page)

      // Data sent and validated through the API: the first two tasks are done, the assessment is next.
      const batch = await rto1.submitted(await minimalUnitRecord())
      await page.goto(home())
      await reloadUntil(page, /enrolments of the period held/)
      const sent = await tasksOf(page)
      assert.equal(sent['Send your data'], 'Completed')
      assert.equal(sent['Fix what failed validation'], 'Completed')
      assert.equal(sent['Run the data quality assessment'], 'Not yet started')
      assert.equal(sent['Declare the period'], 'Cannot start yet')
      const fix = page.getByRole('link', { name: 'Fix what failed validation' })
      assert.equal(
        new URL(await fix.evaluate((a) => (a as HTMLAnchorElement).href)).pathname,
        `/console/rto/90001/batches/NSW/${batch}`,
      )

      // By keyboard: the assessment task's link leads to its page for this period and jurisdiction.
      await page.getByRole('link', { name: 'Run the data quality assessment' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'Data quality assessment' }).waitFor()
      assert.equal(new URL(page.url()).search, `?period=${PERIOD}&jurisdiction=NSW`)
      await page.getByRole('button', { name: `Request an assessment of NSW ${PERIOD}` }).click()
      await page
        .getByRole('status')
        .getByText(/requested/)
        .waitFor()
      await page.goto(home())
      await reloadUntil(page, /Last run on \d{4}-/)
      const assessed = await tasksOf(page)
      assert.equal(assessed['Run the data quality assessment'], 'Completed')
      assert.notEqual(assessed['Look at the warnings'], 'Cannot start yet')
      assert.equal(assessed['Declare the period'], 'Not yet started')
      await page.getByRole('link', { name: 'Declare the period' }).click()
      await page.getByRole('heading', { level: 1, name: `Review and declare NSW, 2026 Q4` }).waitFor()

      // Declared: the last task is done and says by whom; the due date is no longer counted down.
      const declared = await rto1.request('POST', '/vet-provider/v1/declaration', {
        reportingPeriodNumber: PERIOD,
        jurisdiction: 'NSW',
        declarationType: 'Declaration',
        RTOAcceptanceOfDeclaration: true,
        RTOUserName: 'Alex Declarer',
        RTOUserEmailAddress: 'alex@rto-90001.example',
      })
      assert.ok(declared.status === 200 || declared.status === 201, declared.text)
      await page.goto(home())
      const done = await tasksOf(page)
      assert.equal(done['Declare the period'], 'Completed')
      assert.equal(done['Look at the warnings'], 'Completed')
      await page.getByText(/Declared on \d{4}-\d{2}-\d{2} by Alex Declarer\./).waitFor()
      await page.getByText(`Declared. It was due on ${dueWords}.`).waitFor()
      await assertAccessible(page)

      // On a phone the list fits: each state goes under its task's name.
      await page.setViewportSize({ width: 390, height: 844 })
      await page.reload()
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('a chosen period and jurisdiction with nothing sent says so; one outside those offered falls back to the newest', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/?period=${PERIOD}&jurisdiction=TAS`)
      await page.getByRole('heading', { level: 2, name: 'TAS, 2026 Q4' }).waitFor()
      await page.getByText('Nothing sent under TAS for this period yet', { exact: false }).waitFor()
      await page.goto(`${t.baseUrl}/console/rto/90001/?period=199901&jurisdiction=XX`)
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
      assert.equal(await page.locator('.task-list .task').count(), 5)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })
})
