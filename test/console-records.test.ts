// Records people recognise (issue 32, item 1): RTO staff find a held record by a student's name,
// client identifier or USI, or a unit's code, only among their RTO's records; a record's page shows
// who or what it is, its latest version's fields in full, and its versions with what changed and the
// batches they came in. End to end in Debian's Chromium against a real running service, each page
// checked by axe-core; skipped, saying what to install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { allOf, Reporter, startTestService, uidOf, world, type TestService } from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  signIn,
} from './console/browser.ts'

describe('web console: records people recognise', { skip: chromiumMissing() ?? false }, () => {
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

  it('RTO staff find a student by name, client identifier or USI and a unit by its code; the record page shows its fields and what changed between versions', async () => {
    const w = await world()
    const student = w.student as unknown as {
      firstGivenName: string
      familyName: string
      clientIdentifier: string
      uniqueStudentIdentifier: string
    }
    await rto1.submitted(allOf(w))
    const changed = { ...w.student, emailAddressPrimary: 'new.address@example.com' }
    const second = await rto1.submitted([{ segment: 'student', body: changed }])
    const name = `${student.firstGivenName} ${student.familyName}`

    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Held records' }).click()
      await page.getByRole('heading', { level: 1, name: 'Held records' }).waitFor()
      // By name, in any case, words in any order.
      await page
        .getByLabel('Name, client identifier, USI or code')
        .fill(`${student.familyName.toUpperCase()} ${student.firstGivenName}`)
      await page.getByRole('button', { name: 'Find' }).click()
      const found = page.getByRole('table', { name: /held record/ })
      await found.getByRole('link', { name }).waitFor()
      assert.match(
        String(await found.textContent()),
        new RegExp(`client identifier ${student.clientIdentifier}, USI ${student.uniqueStudentIdentifier}`),
      )
      await assertAccessible(page)

      for (const words of [student.clientIdentifier, student.uniqueStudentIdentifier.toLowerCase()]) {
        await page.goto(`${t.baseUrl}/console/rto/90001/records?q=${encodeURIComponent(words)}`)
        await page
          .getByRole('table', { name: /held record/ })
          .getByRole('link', { name })
          .waitFor()
      }
      const subject = w.subject as unknown as { subjectIdentifier: string; subjectName: string }
      await page.goto(`${t.baseUrl}/console/rto/90001/records?q=${subject.subjectIdentifier}`)
      await page
        .getByRole('table', { name: /held record/ })
        .getByRole('link', { name: `${subject.subjectIdentifier} ${subject.subjectName}` })
        .waitFor()
      await page.goto(`${t.baseUrl}/console/rto/90001/records?q=${encodeURIComponent(`${student.familyName} nobody`)}`)
      await page.getByText(/has every word of/).waitFor()

      // The student's page: who it is, every field of the latest version, its two versions.
      await page.goto(`${t.baseUrl}/console/rto/90001/records?q=${student.clientIdentifier}`)
      await page.getByRole('link', { name }).click()
      await page.getByRole('heading', { level: 2, name: `Student ${uidOf(w.student)}` }).waitFor()
      await page
        .getByText(`${name}, client identifier ${student.clientIdentifier}, USI ${student.uniqueStudentIdentifier}`)
        .waitFor()
      const fields = String(await page.locator('dl.record-fields').textContent())
      assert.match(fields, /emailAddressPrimary\s*new\.address@example\.com/)
      assert.match(
        fields,
        new RegExp(
          `permanentAddress\\.postcode\\s*${(w.student as { permanentAddress: { postcode: string } }).permanentAddress.postcode}`,
        ),
      )
      const versions = page.getByRole('table', { name: /versions, newest first/ })
      const text = String(await versions.textContent())
      assert.match(text, /emailAddressPrimary: \S+ → new\.address@example\.com/)
      assert.match(text, /The first version held/)
      const batchLink = versions.getByRole('link', { name: `Batch ${second.slice(0, 8)}` })
      assert.equal(
        new URL(await batchLink.evaluate((a) => (a as HTMLAnchorElement).href)).pathname,
        `/console/rto/90001/batches/NSW/${second}`,
      )
      await assertAccessible(page)
      await page.setViewportSize({ width: 390, height: 844 })
      await page.reload()
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
    } finally {
      await context.close()
    }

    // Another RTO's people find nothing of RTO 90001's under their own RTO.
    const other = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      await other.page.goto(`${t.baseUrl}/console/rto/90002/records?q=${student.clientIdentifier}`)
      await other.page.getByText(/No record of RTO 90002 has every word/).waitFor()
      assert.equal(
        (await other.page.goto(`${t.baseUrl}/console/rto/90001/records?q=${student.clientIdentifier}`))?.status(),
        404,
      )
    } finally {
      await other.context.close()
    }
  })

  it('a failed result names the student and shows the failing field’s value, not only the record’s type and UID', async () => {
    const w = await world()
    const student = w.student as unknown as {
      firstGivenName: string
      familyName: string
      clientIdentifier: string
      permanentAddress: Record<string, string>
    }
    // A Parramatta address with a Melbourne postcode: the postcode disagrees with the state (BRTS01220).
    const wrong = { ...w.student, permanentAddress: { ...student.permanentAddress, postcode: '3000' } }
    const batch = await rto1.batchWith([{ segment: 'student', body: wrong }])
    const { results } = await rto1.validate(batch)
    const postcode = results.find((r) => r.technicalRuleId === 'BRTS01220')
    assert.ok(postcode, `BRTS01220 expected among ${results.map((r) => r.technicalRuleId).join(', ')}`)
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/batches/NSW/${batch}?rule=BRTS01220`)
      const table = page.getByRole('table', { name: /failed results of rule BRTS01220/ })
      const row = table.getByRole('row').filter({ hasText: 'BRTS01220' }).first()
      await row.getByRole('link', { name: `${student.firstGivenName} ${student.familyName} (Student)` }).waitFor()
      const text = String(await row.textContent())
      assert.match(text, new RegExp(`client identifier ${student.clientIdentifier}`))
      assert.match(text, /permanentAddress\.postcode: 3000/)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })
})
