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
import { withBadUsi } from './support/nat-faults.ts'
import { Assessor, declarationBody, PERIOD } from './support/assessing.ts'
import { minimalUnitRecord, Reporter, startTestService, tokenFor, waitFor, type TestService } from './support/index.ts'
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
    ;[t, browser] = await Promise.all([startTestService({ portKnownBeforeStart: true }), launchChromium()])
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
      await page.getByRole('heading', { level: 1, name: 'What is left to do' }).waitFor()
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
    // A USI whose check character is wrong, which validation fails at a known NAT00080 line, and
    // one line of the client file cut short: the reader leaves it out and says where.
    const { entries, line: badUsiLine } = withBadUsi(set.entries)
    const clients = entries.find((entry) => /NAT00080/i.test(entry.name))!
    const broken = entries.map((entry) =>
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

      // The upload shows its progress (the script sends the form itself): held back here a moment,
      // the bar is there and the button cannot be pressed twice.
      let letThrough!: () => void
      const held = new Promise<void>((resolve) => {
        letThrough = resolve
      })
      await page.route('**/console/rto/90001/nat-import', async (route) => {
        if (route.request().method() === 'POST') await held
        await route.continue()
      })
      await page.getByLabel(/Zip of NAT files/).setInputFiles(zip)
      await page.getByRole('button', { name: 'Import into a new batch' }).click()
      await page.getByRole('status').locator('progress').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Import into a new batch' }).isDisabled(), true)
      letThrough()
      // A small import has ended by the time the post answers and the page goes to its answer; on a
      // busy machine it may not have, and the page goes to the import's live status instead, which
      // offers the answer once the import has finished.
      const answer = page.getByRole('heading', { level: 1, name: /NAT import into batch/ })
      const followed = page.getByRole('link', { name: 'See what the import did' })
      await answer.or(followed).waitFor({ timeout: 120_000 })
      if (await followed.isVisible()) await followed.click()
      await answer.waitFor()
      await page.unroute('**/console/rto/90001/nat-import')
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
      await screenshot(page, 'nat-import', 1250)

      // A reload shows the answer again (kept with the batch) and imports nothing twice.
      const batches = async () => (await rto1.request('GET', `/vet-provider/v1/VIC/transaction-batch`)).json
      const before = JSON.stringify(await batches())
      await page.reload()
      await page.getByRole('heading', { level: 1, name: /NAT import into batch/ }).waitFor()
      assert.equal(JSON.stringify(await batches()), before)

      // The batch list says where the batch came from: a NAT import in the console, and its files.
      const token = decodeURIComponent(/\/batches\/VIC\/([^/]+)\/nat-import$/.exec(page.url())![1]!)
      const list = await context.newPage()
      await list.goto(`${t.baseUrl}/console/rto/90001/batches?token=${encodeURIComponent(token)}`)
      const row = list.getByRole('row').filter({ has: list.getByRole('link', { name: new RegExp(`batch ${token}`) }) })
      assert.match(String(await row.textContent()), /NAT import in the console[\s\S]*NAT00080/)
      await list.close()

      await page.getByRole('link', { name: 'Go to the batch' }).click()
      await page.getByRole('heading', { level: 1, name: /^Batch / }).waitFor()
      const batchUrl = page.url()
      // The batch page says where the batch came from, and once validated leads to its NAT findings.
      await page.getByRole('link', { name: 'the import’s answer' }).waitFor()
      // Not validated yet: no submit is offered (what a submit of a NAT batch with dropped lines asks
      // for is tested in test/console-sign-off.test.ts, on a batch without blocking failures).
      assert.equal(await page.getByRole('button', { name: 'Submit the batch' }).count(), 0)
      await page.getByRole('button', { name: 'Validate the batch' }).click()
      await page
        .getByRole('link', { name: 'These results at the NAT file, line and field they came from' })
        .click({ timeout: 60_000 })
      await page.getByRole('heading', { level: 1, name: /in its NAT files$/ }).waitFor()
      const findings = page.getByRole('table', { name: /failed results, page 1 of 1/ })
      const usiRow = findings.getByRole('row', { name: /BRTS01200/ })
      assert.match(
        String(await usiRow.textContent()),
        new RegExp(`NAT00080 line ${badUsiLine} field Unique student identifier`),
      )
      await assertAccessible(page)
      await screenshot(page, 'nat-findings')
      // The rule's identifier leads to its entry in the catalogue.
      await usiRow.getByRole('link', { name: 'BRTS01200' }).click()
      await page.waitForURL(/\/console\/rules#BRTS01200$/)
      await page.getByRole('heading', { level: 2, name: /^BRTS01200: / }).waitFor()
      await page.goto(batchUrl)

      await page.setViewportSize({ width: 320, height: 640 })
      await page.goto(`${batchUrl}/nat-import`)
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
      for (const path of [
        '/console/collection',
        '/console/jobs',
        '/console/clients',
        '/console/reference-data/voided-reason/release',
      ]) {
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

  it('every role reads the business rules, filtered on the server by scope, level, resource type and words', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.getByRole('link', { name: 'Business rules' }).click()
      await page.getByRole('heading', { level: 1, name: 'Business rules' }).waitFor()
      const all = await page.locator('section.rule').count()
      assert.ok(all >= 30, `${all} rules`)
      assert.match(String(await page.getByRole('status').textContent()), new RegExp(`All ${all} rules`))
      await assertAccessible(page)
      await screenshot(page, 'rules', 1100)

      await page.getByLabel('Checked').selectOption('assessment')
      await page.getByLabel('Level').selectOption('Warning')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/scope=assessment&level=Warning/)
      const shown = await page.locator('section.rule').count()
      assert.ok(shown > 0 && shown < all, `${shown} of ${all}`)
      for (const text of await page.locator('section.rule dl').allTextContents()) {
        assert.match(text, /Warning/)
        assert.match(text, /Assessment rule/)
      }
      assert.match(String(await page.getByRole('status').textContent()), new RegExp(`${shown} of ${all} rules`))

      // Words and a resource type: the USI rule on Student records.
      await page.goto(`${t.baseUrl}/console/rules?q=unique+student+identifier&type=Student`)
      await page.getByRole('heading', { level: 2, name: /^BRTS01200: / }).waitFor()
      assert.equal(await page.getByLabel('Resource type').inputValue(), 'Student')
      // An unknown filter value is ignored, not an error.
      assert.equal((await page.goto(`${t.baseUrl}/console/rules?level=Fatal`))?.status(), 200)
      assert.equal(await page.locator('section.rule').count(), all)

      await page.setViewportSize({ width: 320, height: 640 })
      await assertNoHorizontalScroll(page)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('the operator loads a release of a reference dataset: what it creates, updates and end-dates, then publishes it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'console-release-'))
    const file = (name: string, text: string) => {
      const path = join(directory, name)
      writeFileSync(path, text)
      return path
    }
    const refused = file('refused.csv', 'code,title\nreported_in_error,Reported in error\n')
    const release = file(
      'voided-reason.csv',
      '# a release of voided-reason\ncode,description\nremove_duplicate_record,Remove a duplicate record\nreported_in_error,Reported in error\n',
    )
    const synchronised = async () =>
      (await rto1.request('GET', '/vet-provider/v1/reference-data/voided-reason?changedSince=1901-01-01T00:00:00Z'))
        .json as {
        results: { code: string; status: string; description: string }[]
      }
    const versionsBefore = (await synchronised()).results.length

    const rtoPerson = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await rtoPerson.page.goto(`${t.baseUrl}/console/reference-data/voided-reason`)
      await rtoPerson.page.getByRole('heading', { level: 1, name: 'Voided reason' }).waitFor()
      assert.equal(await rtoPerson.page.getByRole('link', { name: /Load a release/ }).count(), 0)
    } finally {
      await rtoPerson.context.close()
    }

    const { context, page } = await signIn(browser, t.baseUrl, 'operator')
    const second = await context.newPage()
    try {
      await page.getByRole('link', { name: 'Reference data' }).click()
      await page.getByRole('link', { name: 'Voided reason' }).click()
      await page.getByRole('link', { name: 'Load a release of Voided reason' }).click()
      await page.getByRole('heading', { level: 1, name: 'Load a release of Voided reason' }).waitFor()
      await assertAccessible(page)

      // A file the loader refuses: every problem said, nothing changed.
      await page.getByLabel(/Release file of/).setInputFiles(refused)
      await page.getByRole('button', { name: 'Preview the release' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('The file was refused; nothing was changed.').waitFor()
      assert.match(String(await alert.textContent()), /the header has no description column/)
      assert.match(String(await alert.textContent()), /unknown column "title"/)
      await assertAccessible(page)
      assert.equal((await synchronised()).results.length, versionsBefore)

      // The preview: one code created, one updated, the one the file leaves out end-dated.
      await page.getByLabel(/Release file of/).setInputFiles(release)
      await page.getByRole('button', { name: 'Preview the release' }).click()
      await page.getByRole('heading', { level: 1, name: 'Preview a release of Voided reason' }).waitFor()
      const facts = String(await page.locator('dl.facts').textContent())
      assert.match(facts, /Created\s*1\b[\s\S]*Updated\s*1\b[\s\S]*End-dated\s*1\b[\s\S]*Unchanged\s*0\b/)
      assert.match(
        String(await page.getByRole('region', { name: 'Codes the release creates' }).textContent()),
        /reported_in_error\s*Reported in error/,
      )
      assert.match(
        String(await page.getByRole('region', { name: 'Codes the release updates' }).textContent()),
        /remove_duplicate_record[\s\S]*Description: Remove duplicate record → Remove a duplicate record/,
      )
      assert.match(
        String(await page.getByRole('region', { name: /Codes the release end-dates/ }).textContent()),
        /remove_orphaned_record[\s\S]*Status: Active → Inactive/,
      )
      assert.equal((await synchronised()).results.length, versionsBefore, 'a preview changes nothing')
      await assertAccessible(page)
      await screenshot(page, 'reference-release')

      // The same preview in a second tab, then publish from the first.
      await second.goto(`${t.baseUrl}/console/reference-data/voided-reason/release`)
      await second.getByLabel(/Release file of/).setInputFiles(release)
      await second.getByRole('button', { name: 'Preview the release' }).click()
      await second.getByRole('button', { name: 'Publish the release' }).waitFor()

      await page.getByRole('button', { name: 'Publish the release' }).click()
      await page.getByRole('heading', { level: 1, name: 'Voided reason' }).waitFor()
      assert.match(
        String(await page.getByRole('status').textContent()),
        /Published: 1 created, 1 updated, 1 end-dated, 0 unchanged/,
      )
      assert.match(String(await page.getByRole('row', { name: /reported_in_error/ }).textContent()), /Active/)
      assert.match(String(await page.getByRole('row', { name: /remove_orphaned_record/ }).textContent()), /Inactive/)
      // SMS clients synchronise the three new versions.
      const after = await synchronised()
      assert.equal(after.results.length, versionsBefore + 3)
      assert.ok(after.results.some((r) => r.code === 'reported_in_error' && r.status === 'Active'))

      // The second tab's preview was read before that: refused, and shown again as it stands now.
      const stale = second.waitForResponse((response) => response.url().endsWith('/release/publish'))
      await second.getByRole('button', { name: 'Publish the release' }).click()
      assert.equal((await stale).status(), 409)
      await second
        .getByRole('alert')
        .getByText(/changed after your preview was read/)
        .waitFor()
      await second.getByText('The release changes nothing').waitFor()
      assert.equal(await second.getByRole('button', { name: 'Publish the release' }).count(), 0)
      assert.equal((await synchronised()).results.length, versionsBefore + 3, 'nothing published twice')
      await assertAccessible(second)

      // A publish form without its token is refused.
      const forged = await context.request.post(`${t.baseUrl}/console/reference-data/voided-reason/release/publish`, {
        form: { release: Buffer.from('code,description\nx,y\n').toString('base64url'), basis: '1' },
        maxRedirects: 0,
      })
      assert.equal(forged.status(), 403)
    } finally {
      await context.close()
    }
  })
})
