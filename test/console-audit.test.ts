// The audit trail in the web console (issue 33), against a real running service on both databases:
// console reads of held records and searches and console changes leave entries naming the person by
// subject (never their name, nor the searched words); an operator searches every RTO's entries and
// exports them as CSV; an RTO's authorised person sees their own RTO's only; RTO staff have no such
// page. In Debian's Chromium (playwright-core) the pages pass axe-core and are used by keyboard.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { recordAudit, searchAudit, type StoredAuditEntry } from '../src/modules/audit/index.ts'
import type { Db } from '../src/platform/db/database.ts'
import { minimalUnitRecord, Reporter, startTestService, type TestService } from './support/index.ts'
import { assertAccessible, chromiumMissing, launchChromium, screenshot, signIn } from './console/browser.ts'
import { csrfOf, signInOverHttp } from './console/http-session.ts'

async function entriesOf(db: Db, filter: Parameters<typeof searchAudit>[1]): Promise<StoredAuditEntry[]> {
  return (await searchAudit(db, filter, undefined, 500)).entries
}

describe('web console: the audit trail', () => {
  let t: TestService
  let db: Db
  let studentUid: string
  let familyName: string
  let otherBatch: string

  before(async () => {
    t = await startTestService({ portKnownBeforeStart: true })
    db = t.service.database.db
    const rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const records = await minimalUnitRecord()
    const student = records.find((r) => r.segment === 'student')!.body
    studentUid = String(student.studentUID)
    familyName = String(student.familyName)
    await rto1.submitted(records)
    // RTO 90002 makes a batch: its entry must never show on RTO 90001's page.
    otherBatch = await new Reporter(t.baseUrl, await t.token('demo-rto-2')).newBatch()
  })
  after(() => t?.close())

  it("console reads and changes leave entries naming the person's subject, the record and the RTO; never a name or the words searched", async () => {
    const declarer = await signInOverHttp(t.baseUrl, 'declarer-90001')
    const view = await declarer.page(`/console/rto/90001/records?type=Student&uid=${studentUid}`)
    assert.equal(view.status, 200)
    const search = await declarer.page(`/console/rto/90001/records?q=${encodeURIComponent(familyName)}`)
    assert.equal(search.status, 200)
    assert.match(search.text, new RegExp(familyName))
    // A change from the console: discarding a batch (its confirmation page carries the form token).
    const rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const batch = await rto1.newBatch()
    assert.equal((await declarer.page(`/console/rto/90001/batches/NSW/${batch}`)).status, 200)
    const confirm = await declarer.page(`/console/rto/90001/batches/NSW/${batch}/discard`)
    const discarded = await declarer.request('POST', `/console/rto/90001/batches/NSW/${batch}/discard`, {
      _csrf: csrfOf(confirm.text),
    })
    assert.equal(discarded.status, 303)

    const people = (await entriesOf(db, { rto: '90001' })).filter((e) => e.actorKind === 'person')
    const viewed = people.find((e) => e.action === 'console.record.view')
    assert.ok(viewed, 'the record page is recorded')
    assert.equal(viewed.recordType, 'Student')
    assert.equal(viewed.recordId, studentUid)
    assert.equal(viewed.actorRole, 'authorised-person')
    assert.ok(people.some((e) => e.action === 'console.record.search' && e.recordId === null))
    assert.ok(
      people.some((e) => e.action === 'validation.results.read' && e.batchToken === batch),
      "the batch's page (its failed results) is recorded",
    )
    const discard = people.find((e) => e.action === 'batch.discard')
    assert.equal(discard?.batchToken, batch)
    assert.equal(discard?.outcome, 'success')
    const text = JSON.stringify(people)
    for (const personal of [familyName, 'Alex Authorised', 'alex', '@'])
      assert.ok(!text.toLowerCase().includes(personal.toLowerCase()), `no entry holds ${personal}`)
  })

  it("an RTO's authorised person sees their own RTO's entries only; RTO staff and other RTOs' people get 404", async () => {
    const declarer = await signInOverHttp(t.baseUrl, 'declarer-90001')
    const own = await declarer.page('/console/rto/90001/audit')
    assert.equal(own.status, 200)
    assert.match(own.text, /demo-rto-1/)
    assert.ok(!own.text.includes(otherBatch), "RTO 90002's batch is not on RTO 90001's page")
    // Naming another RTO in the query changes nothing: the page's RTO is the person's.
    const asking = await declarer.page('/console/rto/90001/audit?rto=90002')
    assert.ok(!asking.text.includes(otherBatch))
    assert.ok(!asking.text.includes('demo-rto-2'))
    const csv = await declarer.page('/console/rto/90001/audit.csv?rto=90002')
    assert.equal(csv.status, 200)
    assert.match(csv.text, /^day,lane,seq,id,at,actor_kind,actor_id/)
    assert.ok(!csv.text.includes(otherBatch) && !csv.text.includes('demo-rto-2'))
    assert.equal((await declarer.page('/console/rto/90002/audit')).status, 404)
    assert.equal((await declarer.page('/console/rto/90002/audit.csv')).status, 404)
    assert.equal((await declarer.page('/console/audit')).status, 404, "the operators' page is not theirs")

    const staff = await signInOverHttp(t.baseUrl, 'staff-90001')
    assert.equal((await staff.page('/console/rto/90001/audit')).status, 404)
    assert.equal((await staff.page('/console/rto/90001/audit.csv')).status, 404)
    const home = await staff.page('/console/rto/90001/')
    assert.ok(!home.text.includes('Audit trail'), 'no link to it either')
    // Looking at the trail is in the trail.
    const looked = await entriesOf(db, { rto: '90001', action: 'audit.export' })
    assert.ok(looked.some((e) => e.actorRole === 'authorised-person'))
  })

  it('an operator searches every RTO by RTO, action and record, pages, and exports CSV', async () => {
    const operator = await signInOverHttp(t.baseUrl, 'operator')
    const other = await operator.page('/console/audit?rto=90002')
    assert.equal(other.status, 200)
    assert.match(other.text, new RegExp(otherBatch))
    const byRecord = await operator.page(`/console/audit?record=${studentUid}&action=console.record.view`)
    assert.match(byRecord.text, /console\.record\.view/)
    assert.ok(!byRecord.text.includes('batch.create</td>'))
    const csv = await operator.page(`/console/audit.csv?rto=90002&action=batch.create`)
    assert.equal(csv.status, 200)
    const lines = csv.text.trim().split('\r\n')
    assert.equal(
      lines[0],
      'day,lane,seq,id,at,actor_kind,actor_id,actor_role,source_address,action,record_type,record_id,batch_token,rto,outcome,status,request_id,hash',
    )
    assert.ok(lines.slice(1).length >= 1)
    assert.ok(lines.slice(1).every((line) => line.includes(',batch.create,') && line.includes(',90002,')))
    // Paging: 50 entries a page, then a link to older ones that continues after the last shown.
    for (let n = 0; n < 60; n++)
      await recordAudit(db, {
        actorKind: 'system',
        actorId: 'paging-test',
        actorRole: null,
        sourceAddress: null,
        action: 'job.retry',
        recordType: 'job',
        recordId: `job-${n}`,
        batchToken: null,
        rto: 'P1',
        outcome: 'success',
        status: null,
        requestId: null,
      })
    const first = await operator.page('/console/audit?rto=P1')
    assert.match(first.text, /50 entries, newest first/)
    assert.match(first.text, /job-59/)
    const older = /href="([^"]+before=[^"]+)"/.exec(first.text)
    assert.ok(older, 'a link to older entries')
    const next = await operator.page(older[1]!.replaceAll('&amp;', '&'))
    assert.match(next.text, /10 entries, continued/)
    assert.match(next.text, /job-9</)
    assert.ok(!next.text.includes('job-10<'), 'the second page starts after the first')
    const operatorEntries = await entriesOf(db, { action: 'audit.search' })
    assert.ok(operatorEntries.some((e) => e.actorKind === 'operator' && e.rto === null))
  })

  it("an operator's client administration and a refused form are recorded; a form without its CSRF token changes nothing and leaves no entry", async () => {
    const operator = await signInOverHttp(t.baseUrl, 'operator')
    const clients = await operator.page('/console/clients')
    const csrf = csrfOf(clients.text)
    const added = await operator.request('POST', '/console/clients', {
      _csrf: csrf,
      clientId: 'audited-client',
      rto: '90003',
      scopes: 'vet:read',
    })
    assert.equal(added.status, 201, added.text.slice(0, 200))
    const rotate = await operator.page('/console/clients/audited-client/rotate')
    const rotated = await operator.request('POST', '/console/clients/audited-client/rotate', {
      _csrf: csrfOf(rotate.text),
    })
    assert.equal(rotated.status, 200)
    const disabled = await operator.request('POST', '/console/clients/audited-client/disable', { _csrf: csrf })
    assert.equal(disabled.status, 303)
    const forged = await operator.request('POST', '/console/clients/audited-client/enable', { _csrf: 'forged' })
    assert.equal(forged.status, 403)
    const entries = await entriesOf(db, { recordId: 'audited-client' })
    assert.deepEqual(
      entries.map((e) => [e.action, e.actorKind, e.actorRole, e.recordType, e.outcome]).reverse(),
      [
        ['client.register', 'operator', 'operator', 'api-client', 'success'],
        ['client.rotate-secret', 'operator', 'operator', 'api-client', 'success'],
        ['client.disable', 'operator', 'operator', 'api-client', 'success'],
      ],
      'the forged enable is refused before its handler ran: no entry, nothing changed',
    )
  })

  it('the pages pass axe-core and are used by keyboard', { skip: chromiumMissing() ?? false }, async () => {
    const browser: Browser = await launchChromium()
    try {
      const { context, page } = await signIn(browser, t.baseUrl, 'operator')
      await page.getByRole('link', { name: 'Audit trail' }).click()
      await page.getByRole('heading', { name: 'Audit trail' }).waitFor()
      await assertAccessible(page)
      await page.getByLabel('RTO').focus()
      await page.keyboard.type('90002')
      await page.keyboard.press('Enter')
      await page.waitForURL(/rto=90002/)
      await page.getByText(otherBatch).first().waitFor()
      await assertAccessible(page)
      await screenshot(page, 'audit')
      await context.close()

      const declarer = await signIn(browser, t.baseUrl, 'declarer-90001')
      await declarer.page.getByRole('link', { name: 'Audit trail' }).click()
      await declarer.page.getByRole('heading', { name: 'RTO 90001: audit trail' }).waitFor()
      await assertAccessible(declarer.page)
      await declarer.context.close()
    } finally {
      await browser.close()
    }
  })
})
