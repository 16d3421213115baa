// The web console's operator pages and the RTO pages added after the first slice, end to end in
// Debian's Chromium (playwright-core) against a real running service, each page checked by axe-core:
// the collection at a glance per period and jurisdiction. Skipped, saying what to install, when
// Chromium is absent. test/console.test.ts covers signing in, sessions and the first pages.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { sql } from 'kysely'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources.
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { Assessor, declarationBody, PERIOD } from './support/assessing.ts'
import {
  freePort,
  minimalUnitRecord,
  Reporter,
  startTestService,
  tokenFor,
  waitFor,
  type TestService,
} from './support/index.ts'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  screenshot,
  signIn,
} from './console/browser.ts'

describe('web console: operators and the remaining RTO pages', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let rto1: Reporter

  before(async () => {
    const port = await freePort()
    ;[t, browser] = await Promise.all([startTestService({ env: { PORT: String(port) } }), launchChromium()])
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    // RTO 90001 submits NSW 202604, has it assessed and declares it; RTO 90002 submits nothing.
    await rto1.submitted(await minimalUnitRecord())
    const assessor = new Assessor(rto1)
    await assessor.assess()
    const declared = await assessor.declare(declarationBody())
    assert.equal(declared.status, 200, declared.text)
  })

  after(async () => {
    await browser?.close()
    await t?.close()
  })

  it('the operator sees the collection at a glance: who submitted, assessed, declared, and who is overdue', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('link', { name: 'The collection' }).click()
      await page.getByRole('heading', { level: 1, name: 'The collection at a glance' }).waitFor()
      await page.getByLabel('Reporting period', { exact: true }).selectOption(String(PERIOD))
      await page.getByLabel('Jurisdiction', { exact: true }).selectOption('NSW')
      await page.getByRole('button', { name: 'Show' }).click()
      await page.waitForURL(/period=202604&jurisdiction=NSW/)
      const row = page.getByRole('row', { name: /RTO 90001/ })
      const text = String(await row.textContent())
      assert.match(text, /Validated/)
      assert.match(text, /Declared/)
      assert.doesNotMatch(text, /overdue/)
      assert.equal(
        await page.getByRole('row', { name: /RTO 90002/ }).count(),
        0,
        'RTO 90002 reports under no jurisdiction',
      )
      await assertAccessible(page)
      await screenshot(page, 'collection')

      // The period before: submitted under NSW but never declared, and its due date has passed.
      await page.goto(`${t.baseUrl}/console/collection?period=202603&jurisdiction=NSW`)
      const earlier = String(await page.getByRole('row', { name: /RTO 90001/ }).textContent())
      assert.match(earlier, /Nothing submitted/)
      assert.match(earlier, /Not declared/)
      assert.match(earlier, /overdue/)
      assert.match(String(await page.locator('dl.facts').textContent()), /Overdue\s*1\b/)

      // A jurisdiction nobody reports under, then each RTO's own pages from the list.
      await page.goto(`${t.baseUrl}/console/collection?period=202604&jurisdiction=TAS`)
      await page.getByText('No RTO reports under TAS yet.').waitFor()
      await assertAccessible(page)
      await page.goto(`${t.baseUrl}/console/collection`)
      await page.getByRole('link', { name: 'RTO 90001' }).click()
      await page.getByRole('heading', { level: 1, name: 'Where each reporting period stands' }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/console/rto/90001/')

      await page.setViewportSize({ width: 320, height: 640 })
      await page.goto(`${t.baseUrl}/console/collection`)
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('the operator sees the background jobs by queue and state, and queues a failed job again', async () => {
    // A job that used every retry: reconciling RTO 90002, which has nothing to reconcile once retried.
    const planted = await sql<{ id: string }>`
      INSERT INTO pgboss.job (name, data, state, retry_limit, retry_count, started_on, completed_on, output)
      VALUES ('reconcile-submissions', '{"rto":"90002"}', 'failed', 0, 0, now(), now(), '{"message":"planted failure"}')
      RETURNING id::text AS id`.execute(t.service.database.db)
    const jobId = planted.rows[0]!.id
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('link', { name: 'Background jobs' }).click()
      await page.getByRole('heading', { level: 1, name: 'Background jobs' }).waitFor()
      const counts = String(await page.getByRole('row', { name: /^reconcile-submissions/ }).textContent())
      assert.match(counts, /1 failed jobs of reconcile-submissions/)
      const failed = page.getByRole('table', { name: /Failed jobs of reconcile-submissions/ })
      assert.match(String(await failed.textContent()), /planted failure/)
      await assertAccessible(page)
      await screenshot(page, 'jobs')

      // Retry without the form's token: refused. With it: queued again, then run by the workers.
      const url = `${t.baseUrl}/console/jobs/reconcile-submissions/${jobId}/retry`
      assert.equal((await context.request.post(url, { form: {}, maxRedirects: 0 })).status(), 403)
      await failed.getByRole('button', { name: `Retry job ${jobId}` }).click()
      await page.getByRole('status').getByText(`Job ${jobId} of reconcile-submissions is queued again.`).waitFor()
      await assertAccessible(page)
      await waitFor('the retried job completed', async () => {
        const row = await sql<{
          state: string
        }>`SELECT state::text AS state FROM pgboss.job WHERE id = ${jobId}::uuid`.execute(t.service.database.db)
        return row.rows[0]?.state === 'completed' ? true : undefined
      })
      await page.setViewportSize({ width: 320, height: 640 })
      await page.reload()
      await page.getByText('No job has failed.').waitFor()
      await assertNoHorizontalScroll(page)

      // Again, now that it is not failed: said so, nothing happens.
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const again = await context.request.post(url, { form: { _csrf: token }, maxRedirects: 0 })
      assert.equal(again.status(), 303)
      await page.reload()
      await page
        .getByRole('alert')
        .getByText(/is not a failed job/)
        .waitFor()
    } finally {
      await context.close()
    }
  })

  it('the operator adds an SMS client, its secret shown once, rotates the secret, disables and enables it', async () => {
    const gets = (secret: string) =>
      tokenFor(t.baseUrl, 'console-sms-1', secret).then(
        () => true,
        () => false,
      )
    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    try {
      await page.getByRole('link', { name: 'SMS clients' }).click()
      await page.getByRole('heading', { level: 1, name: 'SMS clients' }).waitFor()
      await page.getByRole('row', { name: /demo-rto-1/ }).waitFor()
      await assertAccessible(page)
      await screenshot(page, 'clients')

      await page.getByLabel(/Client id/).fill('console-sms-1')
      await page.getByLabel(/^RTO/).fill('90002')
      const [added] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/console/clients')),
        page.getByRole('button', { name: 'Add the client' }).click(),
      ])
      assert.equal(added.status(), 201)
      assert.match(String(added.headers()['cache-control']), /no-store/)
      await page.getByRole('heading', { level: 1, name: 'Client added' }).waitFor()
      const secret = String(await page.locator('code.secret').textContent())
      assert.ok(secret.length >= 32, secret)
      assert.ok(await gets(secret), 'the new client gets a token with the secret shown')
      await assertAccessible(page)

      // The list never shows a secret; adding the same client id again is refused, saying why.
      await page.getByRole('link', { name: 'Back to the SMS clients' }).click()
      assert.equal(await page.getByText(secret).count(), 0)
      assert.match(
        String(await page.getByRole('row', { name: /console-sms-1/ }).textContent()),
        /90002.*vet:report vet:read.*Enabled/s,
      )
      await page.getByLabel(/Client id/).fill('console-sms-1')
      await page.getByLabel(/^RTO/).fill('90002')
      await page.getByRole('button', { name: 'Add the client' }).click()
      await page
        .getByRole('alert')
        .getByText(/already exists/)
        .waitFor()
      await assertAccessible(page)

      // Rotation asks first, then shows the new secret once; the old one gets no token.
      await page.getByRole('link', { name: 'Rotate the secret of console-sms-1' }).click()
      await page.getByRole('heading', { level: 1, name: /Rotate the secret of/ }).waitFor()
      await assertAccessible(page)
      await page.getByRole('button', { name: 'Rotate the secret' }).click()
      await page.getByRole('heading', { level: 1, name: 'Secret rotated' }).waitFor()
      const rotated = String(await page.locator('code.secret').textContent())
      assert.notEqual(rotated, secret)
      assert.equal(await gets(secret), false, 'the old secret is refused')
      assert.ok(await gets(rotated))
      await assertAccessible(page)

      await page.goto(`${t.baseUrl}/console/clients`)
      await page.getByRole('button', { name: 'Disable console-sms-1' }).click()
      await page
        .getByRole('status')
        .getByText(/Client console-sms-1 is disabled/)
        .waitFor()
      assert.equal(await gets(rotated), false, 'a disabled client gets no token')
      await assertAccessible(page)
      await page.getByRole('button', { name: 'Enable console-sms-1' }).click()
      await page.getByRole('status').getByText('Client console-sms-1 is enabled again.').waitFor()
      assert.ok(await gets(rotated))

      await page.setViewportSize({ width: 320, height: 640 })
      await page.reload()
      await assertNoHorizontalScroll(page)

      // An unknown client: 404.
      assert.equal((await page.goto(`${t.baseUrl}/console/clients/no-such-client/rotate`))?.status(), 404)
    } finally {
      await context.close()
    }
  })

  it('RTO staff import a zip of NAT files into a new batch and read its answer, NAT problems at file and line', async () => {
    const set = generateNatFileSet({
      activities: 5,
      seed: 'console',
      year: 2026,
      asOf: '2026-06-30',
      rtoCode: '90001',
      referenceData: await readSeedReferenceData(),
    })
    // One line of the client file cut short: the reader leaves it out and says where.
    const clients = set.entries.find((entry) => /NAT00080/i.test(entry.name))!
    const broken = set.entries.map((entry) =>
      entry === clients
        ? { ...entry, bytes: Buffer.concat([Buffer.from(entry.bytes), Buffer.from('short line\r\n')]) }
        : entry,
    )
    const directory = mkdtempSync(join(tmpdir(), 'console-nat-'))
    const zip = join(directory, 'nat-files.zip')
    writeFileSync(zip, natZipBytes(broken))
    const notZip = join(directory, 'notes.zip')
    writeFileSync(notZip, 'not a zip at all')

    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Import NAT files' }).click()
      await page.getByRole('heading', { level: 1, name: 'Import NAT files' }).waitFor()
      await assertAccessible(page)

      // Not a zip: refused, nothing stored, said on the form.
      await page.getByLabel('Jurisdiction').selectOption('VIC')
      await page.getByLabel(/Zip of NAT files/).setInputFiles(notZip)
      await page.getByRole('button', { name: 'Import into a new batch' }).click()
      await page
        .getByRole('alert')
        .getByText(/Nothing was imported/)
        .waitFor()
      assert.equal(await page.getByLabel('Jurisdiction').inputValue(), 'VIC')
      await assertAccessible(page)

      await page.getByLabel(/Zip of NAT files/).setInputFiles(zip)
      await page.getByRole('button', { name: 'Import into a new batch' }).click()
      await page.getByRole('heading', { level: 1, name: /NAT import into batch/ }).waitFor()
      assert.match(page.url(), /\/console\/rto\/90001\/batches\/VIC\/[^/]+\/nat-import$/)
      const flash = String(await page.locator('.flash').first().textContent())
      assert.match(
        flash,
        /Imported \d+ records into a new batch, but \d+ NAT problems left records or fields out/,
        flash,
      )
      const problems = page.getByRole('table', { name: 'NAT problems, by file and line' })
      const shortLine = Buffer.from(clients.bytes).toString('latin1').split('\r\n').filter(Boolean).length + 1
      assert.match(String(await problems.textContent()), new RegExp(`NAT00080 line ${shortLine}\\b[^]*Reading`))
      await assertAccessible(page)
      await screenshot(page, 'nat-import')

      // A reload shows the answer again (kept with the batch) and imports nothing twice.
      const batches = async () => (await rto1.request('GET', `/vet-provider/v1/VIC/transaction-batch`)).json
      const before = JSON.stringify(await batches())
      await page.reload()
      await page.getByRole('heading', { level: 1, name: /NAT import into batch/ }).waitFor()
      assert.equal(JSON.stringify(await batches()), before)

      await page.getByRole('link', { name: 'Go to the batch' }).click()
      await page.getByRole('heading', { level: 1, name: /^Batch / }).waitFor()
      await page.getByRole('button', { name: 'Validate the batch' }).waitFor()

      await page.setViewportSize({ width: 320, height: 640 })
      await page.goBack()
      await assertNoHorizontalScroll(page)
    } finally {
      await context.close()
    }
    // The operator reads RTO data and imports nothing: no link, and the page is 404.
    const operator = await signIn(browser, t.baseUrl, 'operator')
    try {
      assert.equal((await operator.page.goto(`${t.baseUrl}/console/rto/90001/nat-import`))?.status(), 404)
    } finally {
      await operator.context.close()
    }
  })

  it("RTO people are answered 404 for the operators' pages", async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'declarer-90001')
    try {
      for (const path of ['/console/collection', '/console/jobs', '/console/clients']) {
        const response = await page.goto(`${t.baseUrl}${path}`)
        assert.equal(response?.status(), 404, path)
      }
      assert.equal(await page.getByRole('link', { name: 'The collection' }).count(), 0)
      // Nor may they post an operator's form, even with their own session's token.
      await page.goto(`${t.baseUrl}/console/rto/90001/`)
      const token = await page.locator('input[name="_csrf"]').first().inputValue()
      const retry = await context.request.post(
        `${t.baseUrl}/console/jobs/reconcile-submissions/00000000-0000-4000-8000-000000000000/retry`,
        { form: { _csrf: token }, maxRedirects: 0 },
      )
      assert.equal(retry.status(), 404)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })
})
