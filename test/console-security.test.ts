// The console's security checks without a browser, so they run wherever the suite runs (the browser
// tests in console*.test.ts repeat some of them in Chromium, and add what only a browser shows): a
// form posted without its CSRF token or with a wrong one is refused; one RTO's people are answered 404
// for another RTO's pages and batches; the operator reads any RTO and changes nothing. Each person
// signs in through the same OpenID Connect flow as in the browser (test/console/http-session.ts).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { minimalUnitRecord, Reporter, startTestService, type TestService } from './support/index.ts'
import { csrfOf, signInOverHttp } from './console/http-session.ts'

describe('web console security, over plain HTTP', () => {
  let t: TestService
  let rto2: Reporter
  let failingBatch: string
  let otherRtoBatch: string

  before(async () => {
    // The built-in provider's issuer names the port, so it is chosen before the service starts.
    t = await startTestService({ portKnownBeforeStart: true })
    const rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    rto2 = new Reporter(t.baseUrl, await t.token('demo-rto-2'))
    const uploads = await minimalUnitRecord()
    const student = uploads.find((u) => u.segment === 'student')!
    const { emailAddressPrimary: _left, ...withoutEmail } = student.body
    failingBatch = await rto1.batchWith([{ segment: 'student', body: withoutEmail }]) // BRTS01180
    otherRtoBatch = await rto2.batchWith(uploads)
  })
  after(() => t?.close())

  it('a console form posted without its CSRF token, or with a wrong one, is refused (403); with the page’s token it is accepted', async () => {
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const url = `/console/rto/90001/batches/NSW/${failingBatch}/validate`
    const without = await session.request('POST', url, {})
    assert.equal(without.status, 403)
    assert.match(without.text, /Form refused/)
    const wrong = await session.request('POST', url, { _csrf: 'not-the-token' })
    assert.equal(wrong.status, 403)
    const page = await session.page(`/console/rto/90001/batches/NSW/${failingBatch}`)
    assert.equal(page.status, 200)
    assert.match(page.text, /Validate the batch/, 'its own batch offers the action the operator is not offered')
    const accepted = await session.request('POST', url, { _csrf: csrfOf(page.text) })
    assert.equal(accepted.status, 303)
  })

  it("an RTO's people are answered 404 for another RTO's pages and batches, and cannot act on them", async () => {
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    for (const path of [
      '/console/rto/90002/',
      '/console/rto/90002/batches',
      `/console/rto/90002/batches/NSW/${otherRtoBatch}`,
      `/console/rto/90001/batches/NSW/${otherRtoBatch}`, // the other RTO's batch under one's own RTO
    ]) {
      const answer = await session.page(path)
      assert.equal(answer.status, 404, path)
      assert.match(answer.text, /<h1[^>]*>\s*Page not found\s*<\/h1>/, path)
      assert.doesNotMatch(answer.text, new RegExp(otherRtoBatch), `${path} says nothing of the batch`)
    }
    const own = await session.page('/console/rto/90001/batches')
    for (const target of [
      `/console/rto/90002/batches/NSW/${otherRtoBatch}/validate`,
      `/console/rto/90001/batches/NSW/${otherRtoBatch}/validate`,
    ]) {
      const refused = await session.request('POST', target, { _csrf: csrfOf(own.text) })
      assert.equal(refused.status, 404, target)
    }
    const status = await rto2.request('GET', rto2.batchPath(otherRtoBatch, '/validate'))
    assert.equal(status.status, 404, 'no validation was requested')
  })

  it("the operator reads every RTO's pages and changes nothing: no action offered, a posted action refused", async () => {
    const session = await signInOverHttp(t.baseUrl, 'operator')
    const rtos = await session.page('/console/')
    assert.match(rtos.text, /<h1[^>]*>\s*RTOs\s*<\/h1>/)
    const batch = await session.page(`/console/rto/90002/batches/NSW/${otherRtoBatch}`)
    assert.equal(batch.status, 200)
    assert.match(batch.text, new RegExp(`Batch ${otherRtoBatch}`))
    assert.doesNotMatch(batch.text, /Validate the batch/, 'no validate button')
    assert.doesNotMatch(batch.text, /Submit the batch/, 'no submit button')
    const refused = await session.request('POST', `/console/rto/90002/batches/NSW/${otherRtoBatch}/validate`, {
      _csrf: csrfOf(batch.text),
    })
    assert.equal(refused.status, 404)
    const status = await rto2.request('GET', rto2.batchPath(otherRtoBatch, '/validate'))
    assert.equal(status.status, 404, 'no validation was requested')
  })
})
