// The console's webhooks page (issue 33), in Debian's Chromium against a real service, checked by
// axe-core: an RTO's endpoints with their state, an endpoint's delivery log, and sending an event
// again (a CSRF-protected form, reached by keyboard); an operator reads but cannot send; another
// RTO's people get 404. Skipped, saying what to install, when Chromium is absent.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { Reporter, startTestService, V1, waitFor, type TestService } from './support/index.ts'
import {
  assertAccessible,
  chromiumMissing,
  launchChromium,
  reloadUntil,
  screenshot,
  signIn,
} from './console/browser.ts'

describe('web console: webhooks', { skip: chromiumMissing() ?? false }, () => {
  let t: TestService
  let browser: Browser
  let receiver: Server
  // The webhook-id of each request, by the receiver's path (/hook, /failing).
  const received: { path: string; id: string }[] = []
  const answer = 200
  let endpointId = ''
  let failingId = ''

  before(async () => {
    receiver = createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        received.push({ path: String(request.url), id: String(request.headers['webhook-id']) })
        response.writeHead(request.url === '/failing' ? 500 : answer).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    ;[t, browser] = await Promise.all([
      startTestService({ portKnownBeforeStart: true, env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.1' } }),
      launchChromium(),
    ])
    const sms = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
    const created = await sms.request('POST', `${V1}/webhook-endpoints`, {
      url: `${base}/hook`,
      description: 'Student system',
      eventTypes: ['au.gov.vetrs.batch.created'],
    })
    assert.equal(created.status, 201, created.text)
    endpointId = created.json.endpointId
    const failing = await sms.request('POST', `${V1}/webhook-endpoints`, { url: `${base}/failing` })
    failingId = failing.json.endpointId
    await sms.newBatch()
    await waitFor('the failing endpoint disabled', async () => {
      const read = await sms.request('GET', `${V1}/webhook-endpoints/${failingId}`)
      return read.json.enabled === false ? true : undefined
    })
    await waitFor('a delivery', () => (received.length >= 3 ? true : undefined))
  })

  after(async () => {
    await browser?.close()
    await t?.close()
    receiver?.closeAllConnections()
    await new Promise((resolve) => receiver?.close(resolve))
  })

  it('lists the RTO’s endpoints with their state, shows one’s delivery log, and sends an event again', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      await page.goto(`${t.baseUrl}/console/rto/90001/`)
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click()
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: /2 webhook endpoints/ })
      const ok = table.getByRole('row', { name: /\/hook/ })
      await ok.getByText('Enabled').waitFor()
      await ok.getByText('batch.created').waitFor()
      await ok.getByText('Student system').waitFor()
      await table
        .getByRole('row', { name: /\/failing/ })
        .getByText('Disabled: its retries ran out')
        .waitFor()
      await assertAccessible(page)
      await screenshot(page, 'webhooks')

      await ok.getByRole('link', { name: /Delivery log/ }).click()
      await page.getByRole('heading', { name: 'Delivery log', level: 1 }).waitFor()
      // The attempt is logged once the receiver has answered: reloaded until it is.
      await reloadUntil(page, '1 delivery attempt')
      const log = page.getByRole('table', { name: '1 delivery attempt' })
      await log.getByText('Delivered (200)').waitFor()
      await assertAccessible(page)
      const button = log.getByRole('button', { name: /Send again batch\.created/ })
      await button.focus()
      await page.keyboard.press('Enter')
      await page
        .getByRole('status')
        .getByText(/will be sent again/)
        .waitFor()
      // The enabled endpoint's own deliveries: the failing one receives every event more than once anyway.
      const hooked = () => received.filter((request) => request.path === '/hook').map((request) => request.id)
      await waitFor('the event sent again', () =>
        hooked().filter((id) => id === hooked()[0]).length >= 2 ? true : undefined,
      )
      // Reloaded until the redelivery is logged. Not by the number of attempts: a loaded machine's queue
      // may run the first delivery's job twice (at least once), a second automatic attempt.
      await reloadUntil(page, /^Sent again$/)
      await page
        .getByRole('table', { name: /delivery attempts/ })
        .getByText('Sent again', { exact: true })
        .waitFor()
      await assertAccessible(page)
      await screenshot(page, 'webhook-deliveries')

      // The failing endpoint's log says why each attempt failed.
      await page.goto(`${t.baseUrl}/console/rto/90001/webhooks/${failingId}`)
      await page.getByText('disabled, its retries ran out').waitFor()
      assert.equal(await page.getByText('Failed: answered 500').count(), 2)
      await assertAccessible(page)
    } finally {
      await context.close()
    }
  })

  it('a redelivery without the form’s CSRF token is refused', async () => {
    const { context, page } = await signIn(browser, t.baseUrl, 'staff-90001')
    try {
      const response = await page.request.post(
        `${t.baseUrl}/console/rto/90001/webhooks/${endpointId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
        { form: { _csrf: 'wrong' }, maxRedirects: 0 },
      )
      assert.equal(response.status(), 403)
    } finally {
      await context.close()
    }
  })

  it('an operator reads the page without the Send again button; another RTO’s people get 404', async () => {
    const operator = await signIn(browser, t.baseUrl, 'operator')
    try {
      await operator.page.goto(`${t.baseUrl}/console/rto/90001/webhooks/${endpointId}`)
      await operator.page.getByRole('heading', { name: 'Delivery log', level: 1 }).waitFor()
      assert.equal(await operator.page.getByRole('button', { name: /Send again/ }).count(), 0)
    } finally {
      await operator.context.close()
    }
    const other = await signIn(browser, t.baseUrl, 'staff-90002')
    try {
      for (const path of ['webhooks', `webhooks/${endpointId}`]) {
        const response = await other.page.goto(`${t.baseUrl}/console/rto/90001/${path}`)
        assert.equal(response?.status(), 404, path)
      }
      const own = await other.page.goto(`${t.baseUrl}/console/rto/90002/webhooks/${endpointId}`)
      assert.equal(own?.status(), 404, "another RTO's endpoint under one's own RTO")
      await other.page.goto(`${t.baseUrl}/console/rto/90002/webhooks`)
      await other.page.getByText('No webhook endpoints').waitFor()
    } finally {
      await other.context.close()
    }
  })
})
