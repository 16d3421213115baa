// Batches a person can manage (issue 32, item 2): the batch list says where each batch came from (the
// SMS client, a NAT import with its files, the console), when, its state and its records by type; it is
// filtered by state and searched by the token's first characters; RTO staff discard a batch not
// submitted after a confirmation (a CSRF-guarded form), through the API's discard. A submitted batch
// offers no discard, and the operator and another RTO are refused. Over HTTP with the same OpenID
// Connect sign-in a person makes (test/console/http-session.ts).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateNatFileSet, natZipBytes } from '../packages/avetmiss/src/index.ts'
import { sql } from 'kysely'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { BATCH_SEARCH_RECORD_LIMIT } from '../src/modules/batches/index.ts'
import { call, minimalUnitRecord, Reporter, startTestService, V1, type TestService } from './support/index.ts'
import { csrfOf, signInOverHttp } from './console/http-session.ts'
import type { Browser } from 'playwright-core'
import {
  assertAccessible,
  assertNoHorizontalScroll,
  chromiumMissing,
  launchChromium,
  signIn,
} from './console/browser.ts'

const LIST = '/console/rto/90001/batches'
const batchPage = (token: string) => `${LIST}/NSW/${token}`

/** The list's row of a batch (its `<tr>`), or undefined when the page does not list it. */
const rowOf = (html: string, token: string) =>
  [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).find((row) => row.includes(`(batch ${token})`))
const flashOf = (html: string) => /<div class="flash (\w+)" role="\w+">\s*<p>([^<]*)<\/p>/.exec(html)?.slice(1) ?? []

describe('web console: batches a person can manage', () => {
  let t: TestService
  let rto1: Reporter
  let open: string
  let submitted: string

  before(async () => {
    t = await startTestService({ portKnownBeforeStart: true })
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const uploads = await minimalUnitRecord()
    open = await rto1.batchWith(uploads.filter((u) => u.segment === 'student'))
    submitted = await rto1.submitted(uploads)
  })
  after(() => t?.close())

  it('the list says where each batch came from, when it was made, its state and its records by type', async () => {
    const set = generateNatFileSet({
      activities: 2,
      seed: 'console-batches',
      year: 2026,
      asOf: '2026-06-30',
      rtoCode: '90001',
      referenceData: await readSeedReferenceData(),
    })
    const imported = await call(t.baseUrl, 'POST', `${V1}/NSW/nat-import`, {
      token: rto1.token,
      body: natZipBytes(set.entries) as BodyInit,
      headers: { 'content-type': 'application/zip' },
    })
    assert.equal(imported.status, 201, imported.text)
    const natBatch = imported.json.transactionBatchToken as string

    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const list = await session.page(LIST)
    assert.equal(list.status, 200)
    const fromSms = rowOf(list.text, open)
    assert.ok(fromSms, 'the open batch is listed')
    assert.match(fromSms, /SMS client <span class="token">demo-rto-1<\/span>/)
    assert.match(fromSms, /Student: 1\b/)
    assert.match(fromSms, /Not submitted/)
    assert.match(fromSms, /\b\d{2}:\d{2}\b/, 'when it was made')
    const fromNat = rowOf(list.text, natBatch)
    assert.ok(fromNat, 'the imported batch is listed')
    assert.match(fromNat, /NAT import by SMS client <span class="token">demo-rto-1<\/span>/)
    assert.match(fromNat, /NAT00080[^,<]*/i, 'with the NAT files it was read from')
    assert.match(rowOf(list.text, submitted)!, /<td data-label="State">Submitted<\/td>/)
  })

  it('the list is filtered by state and searched by the first characters of a token, taken literally', async () => {
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const onlySubmitted = await session.page(`${LIST}?state=submitted`)
    assert.ok(rowOf(onlySubmitted.text, submitted), 'the submitted batch is kept')
    assert.equal(rowOf(onlySubmitted.text, open), undefined, 'the open batch is left out')
    const onlyOpen = await session.page(`${LIST}?state=not-submitted`)
    assert.ok(rowOf(onlyOpen.text, open))
    assert.equal(rowOf(onlyOpen.text, submitted), undefined)

    const prefix = open.slice(0, 10)
    const found = await session.page(`${LIST}?token=${encodeURIComponent(prefix)}`)
    assert.ok(rowOf(found.text, open))
    assert.equal(rowOf(found.text, submitted), undefined)
    assert.match(found.text, /1 batch match/)
    assert.match(found.text, new RegExp(`id="token"[^>]*value="${prefix}"`), 'the search stays in its field')

    // An underscore is a character of tokens, not a wildcard: a prefix with one where the token has
    // another character matches nothing.
    const index = [...prefix].findIndex((c) => c !== '_')
    const wild = `${prefix.slice(0, index)}_${prefix.slice(index + 1)}`
    const none = await session.page(`${LIST}?token=${encodeURIComponent(wild)}`)
    assert.equal(rowOf(none.text, open), undefined)
    assert.match(none.text, /No batch of RTO 90001 matches this filter/)

    // A character no token has: said at the field, not silently ignored.
    const bad = await session.page(`${LIST}?token=${encodeURIComponent('50%')}`)
    assert.equal(bad.status, 200)
    assert.match(bad.text, /aria-invalid="true" aria-describedby="token-problem"/)
    assert.match(bad.text, /id="token-problem"[\s\S]*only letters, digits, hyphens and underscores/)
  })

  it('the list is searched by a record in the batch: a student’s name, client identifier or USI, a unit’s code (issue 32, item 1)', async () => {
    const uploads = await minimalUnitRecord()
    const student = uploads.find((u) => u.segment === 'student')!.body as Record<string, string>
    const unit = uploads.find((u) => u.segment === 'subject')!.body as Record<string, string>
    // RTO 90002 holds the same student in a batch of its own: never listed for RTO 90001.
    const rto2 = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
    const theirs = await rto2.batchWith(uploads.filter((u) => u.segment === 'student'))
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    for (const words of [
      `${student.familyName!.toUpperCase()} ${student.firstGivenName}`,
      student.clientIdentifier!,
      student.uniqueStudentIdentifier!.toLowerCase(),
    ]) {
      const found = await session.page(`${LIST}?q=${encodeURIComponent(words)}`)
      assert.ok(rowOf(found.text, open), `the open batch holds the student (${words})`)
      assert.ok(rowOf(found.text, submitted), `the submitted batch holds the student (${words})`)
      assert.equal(rowOf(found.text, theirs), undefined, 'another RTO’s batch is never listed')
      assert.match(found.text, /id="q"[^>]*value="[^"]+"/, 'the search stays in its field')
      assert.doesNotMatch(found.text, /More than [\d,]+ records match/, 'a narrow search is whole')
    }
    // A unit's code is only in the submitted batch; with the state filter, nothing.
    const byCode = await session.page(`${LIST}?q=${encodeURIComponent(unit.subjectIdentifier!)}`)
    assert.ok(rowOf(byCode.text, submitted))
    assert.equal(rowOf(byCode.text, open), undefined)
    const none = await session.page(`${LIST}?state=not-submitted&q=${encodeURIComponent(unit.subjectIdentifier!)}`)
    assert.match(none.text, /No batch of RTO 90001 matches this filter\. A record is found when each word/)
    // Every word must be one of a record's keys: a name with a word no record has finds nothing.
    const partial = await session.page(`${LIST}?q=${encodeURIComponent(`${student.familyName} nobody`)}`)
    assert.equal(rowOf(partial.text, open), undefined)
  })

  it('a search matching more records than it reads lists the batches of those it read and says so (issue 32, "Performance")', async () => {
    const broad = await rto1.newBatch()
    // One more student than a search reads, sharing a USI; each with its own client identifier.
    await sql`
      INSERT INTO batch_record (rto_id, transaction_batch_token, resource_type, resource_uid, body, uploaded_by_client)
      SELECT '90001', ${broad}, 'Student', md5('broad' || i)::uuid,
             jsonb_build_object('uniqueStudentIdentifier', 'BROADUSI01', 'clientIdentifier', 'BROAD' || i), 'test'
        FROM generate_series(1, ${BATCH_SEARCH_RECORD_LIMIT + 1}) AS i`.execute(t.service.database.db)
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const found = await session.page(`${LIST}?q=broadusi01`)
    assert.equal(found.status, 200)
    assert.ok(rowOf(found.text, broad), 'the batch holding them is listed')
    assert.match(
      found.text,
      /More than 5,000 records match “broadusi01”, so the batches listed are those holding the records found first/,
    )
    // A second word narrows it to one record: the search is whole again.
    const narrowed = await session.page(`${LIST}?q=${encodeURIComponent('BROADUSI01 broad77')}`)
    assert.ok(rowOf(narrowed.text, broad))
    assert.doesNotMatch(narrowed.text, /More than [\d,]+ records match/)
    assert.match(rowOf(narrowed.text, broad)!, /Student: 5,001\b/, 'its records by type, kept')
  })

  it('RTO staff discard a batch not submitted after confirming it, and it is gone from the list and the API', async () => {
    const doomed = await rto1.batchWith((await minimalUnitRecord()).filter((u) => u.segment === 'student'))
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const batch = await session.page(batchPage(doomed))
    assert.match(batch.text, new RegExp(`href="${batchPage(doomed)}/discard"[^>]*>Discard this batch<`))

    const confirm = await session.page(`${batchPage(doomed)}/discard`)
    assert.equal(confirm.status, 200)
    assert.match(confirm.text, /<h1[^>]*>Discard batch/)
    assert.match(confirm.text, /holds 1 record\b/)
    // Without the form's CSRF token nothing is discarded.
    assert.equal((await session.request('POST', `${batchPage(doomed)}/discard`, {})).status, 403)
    assert.equal((await rto1.request('GET', rto1.batchPath(doomed))).status, 200)

    const done = await session.submit(`${batchPage(doomed)}/discard`, { _csrf: csrfOf(confirm.text) })
    assert.equal(done.status, 200)
    assert.equal(new URL(done.url).pathname, LIST)
    assert.deepEqual(flashOf(done.text), [
      'success',
      `Batch ${doomed} was discarded, with its records and validation results.`,
    ])
    assert.equal(rowOf(done.text, doomed), undefined, 'gone from the list')
    assert.equal((await rto1.request('GET', rto1.batchPath(doomed))).status, 404, 'gone from the API')
    assert.equal((await session.page(batchPage(doomed))).status, 404)
  })

  it('a submitted batch offers no discard, and a discard posted for it is refused with the batch kept', async () => {
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const batch = await session.page(batchPage(submitted))
    assert.equal(batch.status, 200)
    assert.doesNotMatch(batch.text, /Discard this batch/)
    const confirm = await session.page(`${batchPage(submitted)}/discard`)
    assert.equal(new URL(confirm.url).pathname, batchPage(submitted), 'no confirmation page: back to the batch')
    assert.deepEqual(flashOf(confirm.text), ['error', 'A submitted batch is kept: it cannot be discarded.'])
    const refused = await session.submit(`${batchPage(submitted)}/discard`, { _csrf: csrfOf(batch.text) })
    assert.deepEqual(flashOf(refused.text), ['error', 'A submitted batch is kept: it cannot be discarded.'])
    assert.equal((await rto1.request('GET', rto1.batchPath(submitted))).status, 200)
  })

  it('the operator and another RTO’s staff are refused a discard (404), and the batch stays', async () => {
    for (const username of ['operator', 'staff-90002']) {
      const session = await signInOverHttp(t.baseUrl, username)
      const home = await session.page('/console/')
      if (username === 'operator') {
        const batch = await session.page(batchPage(open))
        assert.equal(batch.status, 200, 'the operator reads the batch')
        assert.doesNotMatch(batch.text, /Discard this batch/)
      }
      assert.equal((await session.page(`${batchPage(open)}/discard`)).status, 404, `${username}: no confirmation page`)
      const refused = await session.request('POST', `${batchPage(open)}/discard`, { _csrf: csrfOf(home.text) })
      assert.equal(refused.status, 404, `${username}: the discard is refused`)
    }
    assert.equal((await rto1.request('GET', rto1.batchPath(open))).status, 200, 'the batch is still there')
  })
})

describe('web console: batches in a browser', { skip: chromiumMissing() ?? false }, () => {
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

  it('RTO staff find a batch by its token and discard it with the keyboard alone, every page accessible', async () => {
    const doomed = await rto1.batchWith((await minimalUnitRecord()).filter((u) => u.segment === 'student'))
    const kept = await rto1.newBatch()
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}${LIST}`)
      await assertAccessible(page)
      await page.getByLabel('Batch token starts with').focus()
      await page.keyboard.type(doomed.slice(0, 8))
      await page.keyboard.press('Enter')
      await page.getByText('1 batch match').waitFor()
      await assertAccessible(page)
      assert.equal(await page.getByRole('link', { name: new RegExp(`batch ${kept}`) }).count(), 0)

      await page.getByRole('link', { name: new RegExp(`batch ${doomed}`) }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: `Batch ${doomed}` }).waitFor()
      await page.getByRole('link', { name: 'Discard this batch' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: `Discard batch ${doomed}?` }).waitFor()
      await assertAccessible(page)
      await page.getByRole('button', { name: 'Discard the batch' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('status').getByText(`Batch ${doomed} was discarded`).waitFor()
      await page.getByRole('heading', { level: 1, name: 'Transaction batches' }).waitFor()
      await assertAccessible(page)
      assert.equal(await page.getByRole('link', { name: new RegExp(`batch ${doomed}`) }).count(), 0)
      assert.equal(await page.getByRole('link', { name: new RegExp(`batch ${kept}`) }).count(), 1)

      // A search no token can match is said at its field; on a phone the list scrolls in its own region.
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${t.baseUrl}${LIST}?token=${encodeURIComponent('no such!')}`)
      await page
        .getByRole('alert')
        .getByText(/only letters, digits, hyphens and underscores/)
        .waitFor()
      await assertAccessible(page)
      await assertNoHorizontalScroll(page)
    } finally {
      await context.close()
    }
  })
})
