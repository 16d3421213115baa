// Pictures where people would rather look than read (issue 32, item 6), and tables a phone can read
// (item 9): the RTO's data quality and activity over time, and the operator's collection progress, are
// SVG charts drawn on the server, each with a table of the same numbers beside it. Read from both in
// Debian's Chromium, and against what the API says; each page checked by axe-core at desktop and at
// 390 px, where every table's last column must be on screen. Skipped, saying what to install, when
// Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import { Assessor, minimalUnitRecord, PERIOD, Reporter, startTestService, type TestService } from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  screenshot,
  signIn,
} from './console/browser.ts'

/** A chart's numbers as its SVG draws them: category → series → value. */
async function svgNumbers(page: Page, chartId: string): Promise<Record<string, Record<string, number>>> {
  return page.evaluate((id) => {
    const numbers: Record<string, Record<string, number>> = {}
    for (const bar of document.querySelectorAll(`svg#${id} rect[data-value]`)) {
      const category = bar.getAttribute('data-category')!
      numbers[category] ??= {}
      numbers[category][bar.getAttribute('data-series')!] = Number(bar.getAttribute('data-value'))
    }
    return numbers
  }, chartId)
}

/** The same chart's numbers as the table beside it says them, read from its cells' text. */
async function tableNumbers(page: Page, chartId: string): Promise<Record<string, Record<string, number>>> {
  return page.evaluate((id) => {
    const table = document.querySelector(`table[data-chart="${id}"]`)!
    const series = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent!.trim())
    const numbers: Record<string, Record<string, number>> = {}
    for (const row of table.querySelectorAll('tbody tr')) {
      const category = row.querySelector('th')!.textContent!.trim()
      numbers[category] = {}
      ;[...row.querySelectorAll('td')].forEach((cell, i) => {
        numbers[category]![series[i]!] = Number(cell.textContent!.replace(/,/g, ''))
      })
    }
    return numbers
  }, chartId)
}

/** At a phone's width, every table's last column is inside the viewport, with its heading as a label. */
async function assertLastColumnsVisible(page: Page): Promise<number> {
  const cells = await page.evaluate(() =>
    [...document.querySelectorAll('.table-wrap table tbody tr')].map((row) => {
      const last = row.querySelector('td:last-child, th:last-child')!
      const box = last.getBoundingClientRect()
      return {
        text: (last.textContent ?? '').trim(),
        right: box.right,
        width: box.width,
        label: last.getAttribute('data-label'),
        labelShown: getComputedStyle(last, '::before').content,
      }
    }),
  )
  const width = await page.evaluate(() => window.innerWidth)
  for (const cell of cells) {
    assert.ok(
      cell.width > 0 && cell.right <= width,
      `the last column (“${cell.text}”) ends at ${cell.right}px of ${width}`,
    )
    if (cell.label) assert.equal(cell.labelShown, `"${cell.label}: "`)
  }
  return cells.length
}

describe('web console: charts and their tables, on a desktop and a phone', { skip: chromiumMissing() ?? false }, () => {
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

  it('the RTO’s data quality and activity over time: each chart’s table holds the numbers its SVG draws, and the API’s', async () => {
    const uploads = await minimalUnitRecord()
    await rto1.submitted(uploads)
    // Submitted twice: the activity counts each version submitted.
    await rto1.submitted(uploads.filter((u) => u.segment === 'student'))
    const { results } = await new Assessor(rto1).assess(PERIOD, 'NSW')
    const level = (name: string) => results.filter((r) => r.AssessmentMessageLevel === name).length

    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Over time' }).click()
      await page.getByRole('heading', { level: 1, name: 'Data quality and activity over time' }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/console/rto/90001/trends')
      const quarter = `${Math.floor(PERIOD / 100)} Q${PERIOD % 100}`

      // Data quality: the SVG, its table and the API's outcomes agree.
      const quality = await svgNumbers(page, 'quality-chart')
      assert.deepEqual(quality, await tableNumbers(page, 'quality-chart'))
      assert.deepEqual(quality[quarter], { Errors: level('Error'), Warnings: level('Warning') })
      const chart = page.getByRole('img', { name: 'Data quality over time, NSW' })
      assert.match(String(await chart.getAttribute('aria-labelledby')), /quality-chart-title quality-chart-desc/)
      // Per rule: each rule's count in the period is the API's.
      const rules = page.getByRole('table', { name: /Failed outcomes per rule/ })
      for (const ruleId of new Set(results.map((r) => r.ruleId as string))) {
        const row = rules.getByRole('row', { name: new RegExp(`^${ruleId}\\b`) })
        const cells = await row.getByRole('cell').allTextContents()
        assert.equal(Number(cells.at(-1)!.replace(/,/g, '')), results.filter((r) => r.ruleId === ruleId).length)
      }

      // Activity: every record of the unit record once, and the student twice, all in the period.
      const activity = await svgNumbers(page, 'activity-chart')
      assert.deepEqual(activity, await tableNumbers(page, 'activity-chart'))
      const expected: Record<string, number> = {}
      for (const u of uploads) {
        const type = u.segment === 'student' ? 'Student' : undefined
        if (type) expected[type] = (expected[type] ?? 0) + 2
      }
      assert.equal(activity[quarter]!.Student, expected.Student)
      assert.equal(
        Object.values(activity[quarter]!).reduce((a, b) => a + b, 0),
        uploads.length + uploads.filter((u) => u.segment === 'student').length,
      )

      await assertAccessible(page)
      await screenshot(page, 'trends')
      await page.setViewportSize({ width: 390, height: 844 })
      await assertAccessible(page)
      await assertNoHorizontalScroll(page)
      assert.ok((await assertLastColumnsVisible(page)) >= 3)
      await screenshot(page, 'trends-phone')
    } finally {
      await context.close()
    }
  })

  it('the operator’s collection progress: RTOs declared, assessed and overdue per period, the table the SVG’s numbers', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.goto(`${t.baseUrl}/console/collection?period=${PERIOD}&jurisdiction=NSW`)
      await page.getByRole('heading', { level: 2, name: 'Progress over the recent periods' }).waitFor()
      const progress = await svgNumbers(page, 'progress-chart')
      assert.deepEqual(progress, await tableNumbers(page, 'progress-chart'))
      // The recent periods, at most six, oldest first (the collection began in 2026 Q1).
      const periods = Object.keys(progress)
      assert.ok(periods.length >= 1 && periods.length <= 6)
      assert.deepEqual(periods, [...periods].sort())
      // The chosen period's bars are the at-a-glance totals above them.
      const fact = async (name: string) =>
        Number((await page.locator('dl.facts div', { hasText: name }).locator('dd').textContent())!.replace(/,/g, ''))
      const quarter = `${Math.floor(PERIOD / 100)} Q${PERIOD % 100}`
      assert.deepEqual(progress[quarter], {
        Declared: await fact('Declared'),
        Assessed: await fact('Assessed (Validated)'),
        Overdue: await fact('Overdue'),
      })
      assert.ok(progress[quarter]!.Assessed >= 1, 'RTO 90001 was assessed in the first test')
      await assertAccessible(page)
      await page.setViewportSize({ width: 390, height: 844 })
      await assertAccessible(page)
      await assertNoHorizontalScroll(page)
      assert.ok((await assertLastColumnsVisible(page)) >= 2)
    } finally {
      await context.close()
    }
  })

  it('a refused form says so in an error summary that has the focus and links to each field, and the field says it too', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/records?type=&uid=not-a-uid`)
      const summary = page.getByRole('alert')
      await summary.getByRole('heading', { name: 'There is a problem' }).waitFor()
      // The summary has the focus on arrival, so a screen reader starts there.
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'error-summary')
      assert.equal(await summary.getAttribute('tabindex'), '-1')
      // One link per field in error, each to its field.
      const links = summary.getByRole('link')
      assert.deepEqual(await links.evaluateAll((all) => all.map((a) => a.getAttribute('href'))), ['#type', '#uid'])
      await links.filter({ hasText: 'UID' }).click()
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'uid')
      // Each field is marked and described by its own message.
      for (const [field, words] of [
        ['uid', /Enter the record’s UID/],
        ['type', /Choose the record type/],
      ] as const) {
        const control = page.locator(`#${field}`)
        assert.equal(await control.getAttribute('aria-invalid'), 'true')
        const described = String(await control.getAttribute('aria-describedby'))
        assert.match(String(await page.locator(`#${described}`).textContent()), words)
      }
      await assertAccessible(page)
      await page.setViewportSize({ width: 390, height: 844 })
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('the sign-in page starts at its first field; times are said in the reader’s zone, with UTC on hover', async () => {
    // A reader in Perth: the page, written in Sydney's zone, is said again in theirs.
    const context = await browser.newContext({ timezoneId: 'Australia/Perth' })
    const page = await context.newPage()
    try {
      await page.goto(`${t.baseUrl}/console/`)
      await page.getByRole('link', { name: 'Sign in' }).click()
      await page.waitForURL(/\/console\/idp-sign-in\//)
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'username')
      await page.keyboard.type('staff-90001')
      await page.getByLabel('Password').fill('demo')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByText('Signed in as').waitFor()
      await page.goto(`${t.baseUrl}/console/rto/90001/batches`)
      const time = page.locator('table time').first()
      await time.waitFor()
      const datetime = String(await time.getAttribute('datetime'))
      const perth = new Intl.DateTimeFormat('en-AU', {
        timeZone: 'Australia/Perth',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
      }).format(new Date(datetime))
      assert.equal(await time.textContent(), perth)
      assert.match(perth, /AWST$/)
      assert.equal(await time.getAttribute('title'), `${datetime.slice(0, 10)} ${datetime.slice(11, 16)} UTC`)
      // Without script the server's own rendering stands: Sydney's zone.
      const raw = await (await fetch(`${t.baseUrl}/console/assets/local-time.js`)).text()
      assert.match(raw, /Australia\/Sydney/)
      const html = await page.evaluate(async () => (await fetch(location.href)).text())
      assert.match(html, /<time datetime="[^"]+" title="[^"]+ UTC">\d{1,2} \w{3} \d{4}, [^<]+ AE[DS]T<\/time>/)
    } finally {
      await context.close()
    }
  })

  it('at 390 px every table of the RTO’s and the operator’s pages keeps its last column on screen; the charts need no script', async () => {
    // A batch with a failed result, so its page has the widest table of all.
    const student = (await minimalUnitRecord()).find((u) => u.segment === 'student')!
    const { emailAddressPrimary: _left, ...withoutEmail } = student.body
    const token = await rto1.batchWith([{ segment: 'student', body: withoutEmail }])
    await rto1.validate(token)
    const pages: [string, string[]][] = [
      [
        'staff-90001',
        [
          `/console/rto/90001/?period=${PERIOD}&jurisdiction=NSW`,
          '/console/rto/90001/batches',
          `/console/rto/90001/batches/NSW/${token}`,
          '/console/rto/90001/records?q=Nguyen',
          '/console/rto/90001/declarations',
          `/console/rto/90001/assessment?period=${PERIOD}&jurisdiction=NSW`,
          '/console/rto/90001/trends',
        ],
      ],
      ['operator', [`/console/collection?period=${PERIOD}&jurisdiction=NSW`, '/console/jobs', '/console/clients']],
    ]
    let rows = 0
    for (const [person, paths] of pages) {
      const { context, page } = await signIn(browser, t.baseUrl, person)
      try {
        await page.setViewportSize({ width: 390, height: 844 })
        for (const path of paths) {
          await page.goto(`${t.baseUrl}${path}`)
          await assertNoHorizontalScroll(page)
          rows += await assertLastColumnsVisible(page)
        }
      } finally {
        await context.close()
      }
    }
    assert.ok(rows >= 10, `${rows} table rows checked`)

    // JavaScript off: the charts are there, drawn by the server, and times stay in Sydney's zone.
    const context = await browser.newContext({ javaScriptEnabled: false, timezoneId: 'Australia/Perth' })
    const page = await context.newPage()
    try {
      await page.goto(`${t.baseUrl}/console/`)
      await page.getByRole('link', { name: 'Sign in' }).click()
      await page.getByLabel('Username').fill('staff-90001')
      await page.getByLabel('Password').fill('demo')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByText('Signed in as').waitFor()
      await page.goto(`${t.baseUrl}/console/rto/90001/trends`)
      assert.ok(Object.keys(await svgNumbers(page, 'activity-chart')).length >= 1)
      await page.goto(`${t.baseUrl}/console/rto/90001/batches`)
      assert.match(String(await page.locator('table time').first().textContent()), /AE[DS]T$/)
    } finally {
      await context.close()
    }
  })
})
