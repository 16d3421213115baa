// The console's page of a queued NAT import (issue 31 item 8), in Debian's Chromium checked by axe-core:
// while the import runs its status and progress are said live (live-status.js), and without the
// script the "Refresh the status" link says them again; once it ends, what it made, or why nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { zipSync } from 'fflate'
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { call, startTestService, V1, type TestService } from './support/index.ts'
import { assertAccessible, chromiumMissing, launchChromium, signIn } from './console/browser.ts'

describe('web console: a queued NAT import followed live', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let token: string
  let referenceData: Awaited<ReturnType<typeof readSeedReferenceData>>

  before(async () => {
    ;[t, browser] = await Promise.all([startTestService({ portKnownBeforeStart: true }), launchChromium()])
    token = await t.token('demo-rto-1')
    referenceData = await readSeedReferenceData()
  })
  after(async () => {
    await browser?.close()
    await t?.close()
  })

  const queue = async (zip: Uint8Array) => {
    const response = await call(t.baseUrl, 'POST', `${V1}/VIC/nat-import`, {
      token,
      body: zip as BodyInit,
      headers: { 'content-type': 'application/zip', prefer: 'respond-async' },
    })
    assert.equal(response.status, 202, response.text)
    return response.json.importId as string
  }
  const entriesOf = (activities: number, seed: string) =>
    generateNatFileSet({ activities, seed, year: 2026, asOf: '2026-06-30', rtoCode: '90001', referenceData }).entries

  it('the status and progress are said while the import runs, then what it made; without the script, the refresh link says them', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    // Two imports of RTO 90001: the second usually waits its turn behind the first, so its page opens Queued.
    const zips = [natZipBytes(entriesOf(3000, 'console-status-1')), natZipBytes(entriesOf(20, 'console-status-2'))]
    const first = await queue(zips[0]!)
    const second = await queue(zips[1]!)
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/nat-imports/VIC/${second}`)
      await page.getByRole('heading', { level: 1, name: 'NAT import' }).waitFor()
      const status = page.locator('#import-status')
      assert.match(String(await status.textContent()), /^(Queued|Running)/)
      assert.equal(await status.getAttribute('aria-live'), 'polite')
      await page.getByRole('link', { name: 'Refresh the status' }).waitFor()
      await assertAccessible(page)
      // Said live until it ends: then what it made, and the link to the import's answer.
      await page.getByRole('link', { name: 'See what the import did' }).waitFor({ timeout: 120_000 })
      assert.equal(String(await status.textContent()).trim(), 'Completed')
      assert.equal(await page.getByRole('link', { name: 'Refresh the status' }).count(), 0)
      await assertAccessible(page)
      await page.getByRole('link', { name: 'See what the import did' }).click()
      await page.getByRole('heading', { level: 1, name: /NAT import into batch/ }).waitFor()

      // The first import's page, without the script: its status as the page was made, then ended.
      const noScript = await browser.newContext({
        javaScriptEnabled: false,
        storageState: await context.storageState(),
      })
      const plain = await noScript.newPage()
      await plain.goto(`${t.baseUrl}/console/rto/90001/nat-imports/VIC/${first}`)
      assert.match(String(await plain.locator('#import-status').textContent()), /^(Queued|Running|Completed)/)
      // Nothing changes on a page without the script: the person follows "Refresh the status" until the
      // import has ended (the first, larger import may still run: imports are not ordered by arrival).
      const deadline = Date.now() + 100_000
      while ((await plain.getByRole('link', { name: 'See what the import did' }).count()) === 0) {
        assert.ok(Date.now() < deadline, 'the first import ended within 100 s')
        assert.match(String(await plain.locator('#import-status').textContent()), /^(Queued|Running)/)
        await new Promise((resolve) => setTimeout(resolve, 500))
        await plain.getByRole('link', { name: 'Refresh the status' }).click()
        await plain.locator('#import-status').waitFor()
      }
      assert.equal(String(await plain.locator('#import-status').textContent()).trim(), 'Completed')
      await noScript.close()

      // A failed import says why nothing was imported, and leads back to the form.
      const utf16 = zipSync(
        Object.fromEntries(
          entriesOf(5, 'console-status-3').map((e) => [
            e.name,
            e.name === 'NAT00080.txt' ? Buffer.from(Buffer.from(e.bytes).toString('latin1'), 'utf16le') : e.bytes,
          ]),
        ),
      )
      const failed = await queue(utf16)
      await page.goto(`${t.baseUrl}/console/rto/90001/nat-imports/VIC/${failed}`)
      await page
        .getByRole('alert')
        .getByText(/Nothing was imported: NAT00080\.txt line 1 is UTF-16 text/)
        .waitFor({ timeout: 60_000 })
      await page.getByRole('link', { name: 'Import NAT files again' }).waitFor()
      await assertAccessible(page)
      // Another RTO's person cannot see it.
      const other = await signIn(browser, t.baseUrl, 'staff-90002')
      const response = await other.page.goto(`${t.baseUrl}/console/rto/90001/nat-imports/VIC/${failed}`)
      assert.notEqual(response?.status(), 200)
      await other.context.close()
    } finally {
      await context.close()
    }
  })
})
