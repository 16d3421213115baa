// The SDK's webhooks (issue 33): endpoints managed through the client, and verifyWebhook checking a
// real delivery in one call (with either secret during a rotation), refusing one altered or signed
// with another secret, in agreement with the standardwebhooks package's own verifier.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { collect, ServiceError, verifyWebhook, WebhookVerificationError } from '../src/index.ts'
import { Webhook } from 'standardwebhooks'
import { waitFor } from '../../../test/support/index.ts'
import { newRto, sdkFor, startTestService, type TestService } from './support/service.ts'

describe('SDK: webhooks', () => {
  let t: TestService
  let server: Server
  const received: { body: Buffer; headers: IncomingHttpHeaders }[] = []
  let url = ''
  before(async () => {
    t = await startTestService()
    server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        received.push({ body: Buffer.concat(chunks), headers: request.headers })
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  })
  after(async () => {
    await t.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('manages endpoints, and verifyWebhook answers the event of a real delivery', async () => {
    const sdk = sdkFor(t.baseUrl, await newRto(t))
    const created = await sdk.addWebhookEndpoint({ url, eventTypes: ['au.gov.vetrs.batch.created'] })
    assert.match(created.secret, /^whsec_/)
    assert.deepEqual(
      (await sdk.webhookEndpoints()).map((e) => e.endpointId),
      [created.endpointId],
    )
    const batch = await sdk.createBatch('NSW')
    const delivery = await waitFor('a delivery', () =>
      received.find((r) => r.body.includes(batch.transactionBatchToken)),
    )
    const event = verifyWebhook(delivery.body, delivery.headers, created.secret)
    assert.deepEqual(
      [event.type, event.data.transactionBatchToken, event.id],
      ['au.gov.vetrs.batch.created', batch.transactionBatchToken, delivery.headers['webhook-id']],
    )
    // The same from a string body and a Headers object.
    const headers = new Headers(Object.entries(delivery.headers) as [string, string][])
    assert.equal(verifyWebhook(delivery.body.toString('utf8'), headers, created.secret).id, event.id)
    assert.throws(
      () => verifyWebhook(delivery.body.toString('utf8').replace('NSW', 'VIC'), delivery.headers, created.secret),
      WebhookVerificationError,
    )
    assert.throws(
      () => verifyWebhook(delivery.body, delivery.headers, `whsec_${Buffer.alloc(32, 9).toString('base64')}`),
      WebhookVerificationError,
    )
    assert.throws(
      () => verifyWebhook(delivery.body, { ...delivery.headers, 'webhook-timestamp': '1000000000' }, created.secret),
      /too old/,
    )
    // It agrees with the standardwebhooks package (the service's signer) on the delivery and on each
    // alteration of it: body, id, timestamp, signature, secret.
    const library = (body: string, headers: Record<string, string>, secret: string) => {
      try {
        new Webhook(secret).verify(body, headers)
        return true
      } catch {
        return false
      }
    }
    const sdk1 = (body: string, headers: Record<string, string>, secret: string) => {
      try {
        verifyWebhook(body, headers, secret)
        return true
      } catch {
        return false
      }
    }
    const base = delivery.headers as Record<string, string>
    const text = delivery.body.toString('utf8')
    const stamp = Number(base['webhook-timestamp'])
    const cases: [string, Record<string, string>, string][] = [
      [text, base, created.secret],
      [`${text} `, base, created.secret],
      [text, { ...base, 'webhook-id': 'other' }, created.secret],
      [text, { ...base, 'webhook-timestamp': String(stamp + 1) }, created.secret],
      [text, { ...base, 'webhook-timestamp': String(stamp - 600) }, created.secret],
      [text, { ...base, 'webhook-signature': `v2,${base['webhook-signature']!.slice(3)}` }, created.secret],
      [text, { ...base, 'webhook-signature': `v1,AAAA ${base['webhook-signature']}` }, created.secret],
      [text, base, `whsec_${Buffer.alloc(32, 9).toString('base64')}`],
    ]
    assert.deepEqual(
      cases.map(([body, headers, secret]) => sdk1(body, headers, secret)),
      cases.map(([body, headers, secret]) => library(body, headers, secret)),
    )
    assert.deepEqual(
      cases.map(([body, headers, secret]) => sdk1(body, headers, secret)),
      [true, false, false, false, false, false, true, false],
    )

    const rotated = await sdk.rotateWebhookSecret(created.endpointId)
    const second = await sdk.createBatch('NSW')
    const next = await waitFor('a delivery', () => received.find((r) => r.body.includes(second.transactionBatchToken)))
    for (const secret of [created.secret, rotated.secret]) verifyWebhook(next.body, next.headers, secret)
    assert.equal(
      verifyWebhook(next.body, next.headers, [`whsec_${Buffer.alloc(32, 9).toString('base64')}`, rotated.secret]).id,
      JSON.parse(next.body.toString()).id,
    )

    // An attempt is logged once the receiver has answered.
    const log = await waitFor('both attempts logged', async () => {
      const all = await collect(sdk.webhookDeliveries(created.endpointId))
      return all.length === 2 ? all : undefined
    })
    assert.ok(log.every((d) => d.succeeded && d.statusCode === 204))
    await sdk.redeliverWebhook(created.endpointId, log[0]!.deliveryId)
    await waitFor('the redelivery logged', async () =>
      (await collect(sdk.webhookDeliveries(created.endpointId))).length === 3 ? true : undefined,
    )

    const disabled = await sdk.updateWebhookEndpoint(created.endpointId, { enabled: false })
    assert.deepEqual([disabled.enabled, disabled.disabledReason], [false, 'client'])
    assert.equal((await sdk.webhookEndpoint(created.endpointId)).enabled, false)
    await sdk.removeWebhookEndpoint(created.endpointId)
    await assert.rejects(
      sdk.webhookEndpoint(created.endpointId),
      (error: unknown) => error instanceof ServiceError && error.status === 404,
    )
  })
})
