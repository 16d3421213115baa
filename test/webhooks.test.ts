// Webhooks (issue 33): endpoints registered per RTO, deliveries signed per Standard Webhooks (checked
// with the standardwebhooks package's own verifier on a real receiver), in sequence order, retried
// with backoff and then disabled with an event, the delivery log and redelivery, SSRF refusals (at
// registration and at delivery, a name resolving to loopback included), and RTO isolation.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { loadConfig } from '../src/config/config.ts'
import { recordEvent } from '../src/modules/events/index.ts'
import { housekeepingJob } from '../src/modules/housekeeping/index.ts'
import { checkDestination, DestinationRefused, webhookSettingsOf } from '../src/modules/webhooks/index.ts'
import * as webhookRepo from '../src/modules/webhooks/webhooks.repo.ts'
import { newRto, startTestService, V1, waitFor, type Rto, type TestService } from './support/index.ts'

interface Received {
  body: string
  headers: IncomingHttpHeaders
}

/** A webhook receiver on loopback: records every request, answers what `answer` says (200 by default). */
class Receiver {
  readonly received: Received[] = []
  answer: (request: Received) => number = () => 200
  private server: Server
  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const got = { body: Buffer.concat(chunks).toString('utf8'), headers: request.headers }
        this.received.push(got)
        const status = this.answer(got)
        response.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:1/' } : {})
        response.end()
      })
    })
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return this
  }
  url(host = '127.0.0.1'): string {
    return `http://${host}:${(this.server.address() as AddressInfo).port}/hook`
  }
  events() {
    return this.received.map((r) => JSON.parse(r.body) as Record<string, any>)
  }
  close() {
    this.server.closeAllConnections()
    return new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

async function register(rto: Rto, body: Record<string, unknown>) {
  const created = await rto.reporter.request('POST', `${V1}/webhook-endpoints`, body)
  assert.equal(created.status, 201, created.text)
  return created.json as Record<string, any>
}

const endpointPath = (id: string, rest = '') => `${V1}/webhook-endpoints/${id}${rest}`

describe('webhooks', () => {
  let t: TestService
  let receiver: Receiver
  before(async () => {
    // Retries after 0.2 s and 0.4 s: three attempts, then the endpoint is disabled (in seconds, not a day).
    t = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.4' } })
    receiver = await new Receiver().start()
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  it('registers, lists, reads, changes, rotates and deletes endpoints; the secret is shown only when made', async () => {
    const rto = await newRto(t)
    const created = await register(rto, {
      url: receiver.url(),
      eventTypes: ['au.gov.vetrs.batch.created'],
      description: 'SMS sync',
    })
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.deepEqual(
      [created.url, created.eventTypes, created.description, created.enabled, created.disabledReason],
      [receiver.url(), ['au.gov.vetrs.batch.created'], 'SMS sync', true, null],
    )
    const read = await rto.reporter.request('GET', endpointPath(created.endpointId))
    assert.equal(read.status, 200)
    assert.equal(read.json.secret, undefined, 'never shown again')
    assert.ok(!read.text.includes(created.secret.slice(6)))
    const list = await rto.reporter.request('GET', `${V1}/webhook-endpoints`)
    assert.deepEqual(
      list.json.endpoints.map((e: any) => e.endpointId),
      [created.endpointId],
    )

    const changed = await rto.reporter.request('PATCH', endpointPath(created.endpointId), {
      eventTypes: [],
      enabled: false,
    })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(
      [changed.json.eventTypes, changed.json.enabled, changed.json.disabledReason],
      [[], false, 'client'],
    )

    const rotated = await rto.reporter.request('POST', endpointPath(created.endpointId, '/rotate-secret'))
    assert.equal(rotated.status, 200, rotated.text)
    assert.match(rotated.json.secret, /^whsec_/)
    assert.notEqual(rotated.json.secret, created.secret)
    const hours = (Date.parse(rotated.json.previousSecretValidUntil) - Date.now()) / 3_600_000
    assert.ok(hours > 23.9 && hours <= 24, `previous secret valid for 24 h (${hours})`)

    assert.equal((await rto.reporter.request('DELETE', endpointPath(created.endpointId))).status, 204)
    assert.equal((await rto.reporter.request('GET', endpointPath(created.endpointId))).status, 404)
    assert.equal((await rto.reporter.request('DELETE', endpointPath(created.endpointId))).status, 404)
  })

  it('refuses bad input with a problem: not a URL, an unknown event type, a long description, an unknown field, too many endpoints', async () => {
    const rto = await newRto(t)
    for (const body of [
      { url: 'not a url at all' },
      { url: 'ftp://example.com/hook' },
      { url: receiver.url(), eventTypes: ['au.gov.vetrs.nothing'] },
      { url: receiver.url(), description: 'x'.repeat(501) },
      { url: `https://example.com/${'a'.repeat(2048)}` },
      { url: receiver.url(), secret: 'whsec_mine' },
    ]) {
      const refused = await rto.reporter.request('POST', `${V1}/webhook-endpoints`, body)
      assert.equal(refused.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${refused.text}`)
      assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    }
    assert.equal((await rto.reporter.request('GET', endpointPath('not-a-uuid'))).status, 400)
    for (let i = 0; i < 20; i++) await register(rto, { url: receiver.url() })
    const over = await rto.reporter.request('POST', `${V1}/webhook-endpoints`, { url: receiver.url() })
    assert.equal(over.status, 400, over.text)
    assert.match(over.json.detail, /20 webhook endpoints/)
  })

  it("another RTO's endpoints do not exist for the caller", async () => {
    const [one, two] = [await newRto(t), await newRto(t)]
    const theirs = await register(one, { url: receiver.url() })
    assert.deepEqual((await two.reporter.request('GET', `${V1}/webhook-endpoints`)).json.endpoints, [])
    for (const [method, rest, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { enabled: false }],
      ['POST', '/rotate-secret', undefined],
      ['GET', '/deliveries', undefined],
      ['POST', `/deliveries/${randomUUID()}/redeliver`, undefined],
      ['DELETE', '', undefined],
    ] as const) {
      const answer = await two.reporter.request(method, endpointPath(theirs.endpointId, rest), body)
      assert.equal(answer.status, 404, `${method} ${rest}: ${answer.text}`)
    }
    assert.equal((await one.reporter.request('GET', endpointPath(theirs.endpointId))).json.enabled, true)
  })

  it('delivers each event of the types asked for, in order, signed per Standard Webhooks (verified by the library), with webhook-id the event id', async () => {
    const rto = await newRto(t)
    const own = await new Receiver().start()
    try {
      const endpoint = await register(rto, {
        url: own.url(),
        eventTypes: ['au.gov.vetrs.batch.created', 'au.gov.vetrs.batch.discarded'],
      })
      const batches: string[] = []
      for (let i = 0; i < 3; i++) {
        const batch = await rto.reporter.newBatch()
        batches.push(batch)
        assert.equal((await rto.reporter.request('DELETE', rto.reporter.batchPath(batch))).status, 204)
      }
      // Another RTO's changes reach no endpoint of this one.
      await (await newRto(t)).reporter.newBatch()
      await waitFor(`6 deliveries (got ${own.received.length})`, () => (own.received.length >= 6 ? true : undefined))
      const wh = new Webhook(endpoint.secret)
      for (const r of own.received) {
        const verified = wh.verify(r.body, r.headers as Record<string, string>) as Record<string, any>
        assert.equal(r.headers['webhook-id'], verified.id)
        assert.equal(r.headers['content-type'], 'application/json')
        assert.equal(verified.rtoid, rto.rto)
        assert.equal(verified.specversion, '1.0')
      }
      const events = own.events()
      assert.deepEqual(
        events.map((e) => [e.type.replace('au.gov.vetrs.', ''), e.data.transactionBatchToken]),
        batches.flatMap((b) => [
          ['batch.created', b],
          ['batch.discarded', b],
        ]),
      )
      const sequences = events.map((e) => Number(e.sequence))
      assert.deepEqual(
        sequences,
        [...sequences].sort((a, b) => a - b),
        'in sequence order',
      )
      // A forged or altered delivery does not verify.
      const first = own.received[0]!
      assert.throws(() => wh.verify(first.body.replace(rto.rto, 'X'), first.headers as Record<string, string>))
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
          first.body,
          first.headers as Record<string, string>,
        ),
      )

      // An attempt is logged once the receiver has answered, and the position moved after it.
      const log = await waitFor('6 attempts logged and the position past them', async () => {
        const page = await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries?pageSize=10'))
        assert.equal(page.status, 200, page.text)
        const read = await rto.reporter.request('GET', endpointPath(endpoint.endpointId))
        return page.json.numberOfResults === 6 && read.json.deliveredThrough === events.at(-1)!.sequence
          ? page
          : undefined
      })
      assert.equal(log.json.numberOfResults, 6)
      for (const d of log.json.results) {
        assert.deepEqual([d.succeeded, d.statusCode, d.error, d.attempt, d.redelivery], [true, 200, null, 1, false])
        assert.ok(Number.isInteger(d.latencyMs) && d.latencyMs >= 0)
      }
      const status = await rto.reporter.request('GET', endpointPath(endpoint.endpointId))
      assert.equal(status.json.deliveredThrough, events.at(-1)!.sequence)
    } finally {
      await own.close()
    }
  })

  it('during a secret rotation each delivery carries a signature with the new secret and one with the previous', async () => {
    const rto = await newRto(t)
    const own = await new Receiver().start()
    try {
      const endpoint = await register(rto, { url: own.url() })
      const rotated = (await rto.reporter.request('POST', endpointPath(endpoint.endpointId, '/rotate-secret'))).json
      await rto.reporter.newBatch()
      await waitFor('a delivery', () => (own.received.length >= 1 ? true : undefined))
      const r = own.received[0]!
      assert.equal(String(r.headers['webhook-signature']).split(' ').length, 2)
      for (const secret of [endpoint.secret, rotated.secret]) {
        const verified = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, any>
        assert.equal(verified.type, 'au.gov.vetrs.batch.created')
      }
    } finally {
      await own.close()
    }
  })

  it('a failing receiver: retried with backoff, later events held, then the endpoint is disabled with an event saying so', async () => {
    const rto = await newRto(t)
    const failing = await new Receiver().start()
    failing.answer = () => 503
    const watcher = await new Receiver().start()
    try {
      const endpoint = await register(rto, { url: failing.url(), eventTypes: ['au.gov.vetrs.batch.created'] })
      // A second endpoint of the RTO hears of the first one being disabled.
      await register(rto, { url: watcher.url(), eventTypes: ['au.gov.vetrs.webhook-endpoint.disabled'] })
      await rto.reporter.newBatch()
      await rto.reporter.newBatch()
      const disabled = await waitFor('the endpoint disabled', async () => {
        const read = await rto.reporter.request('GET', endpointPath(endpoint.endpointId))
        return read.json.enabled === false ? read.json : undefined
      })
      assert.deepEqual([disabled.disabledReason, disabled.failedAttempts], ['failing', 3])
      assert.equal(failing.received.length, 3, 'three attempts: the first and two retries')
      const ids = new Set(failing.received.map((r) => r.headers['webhook-id']))
      assert.equal(ids.size, 1, 'every attempt at the first event: the second is held behind it')
      const log = (await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries'))).json
      const attempts = [...log.results].reverse()
      assert.deepEqual(
        attempts.map((d: any) => [d.attempt, d.succeeded, d.statusCode, d.error]),
        [1, 2, 3].map((n) => [n, false, 503, 'answered 503']),
      )
      const [first, second] = attempts
        .slice(1)
        .map((d: any, i: number) => Date.parse(d.attemptedAt) - Date.parse(attempts[i].attemptedAt)) as [number, number]
      assert.ok(
        first >= 170 && second >= 350,
        `waits of at least the schedule's 0.2 s then 0.4 s, less 10 % jitter (gaps ${first}, ${second})`,
      )

      await waitFor('the disabled event delivered', () => (watcher.received.length >= 1 ? true : undefined))
      const [event] = watcher.events()
      assert.equal(event!.type, 'au.gov.vetrs.webhook-endpoint.disabled')
      assert.deepEqual(
        [event!.data.endpointId, event!.data.reason, event!.data.failedAttempts, event!.data.heldEventId],
        [endpoint.endpointId, 'failing', 3, failing.received[0]!.headers['webhook-id']],
      )
      const feed = await rto.reporter.request('GET', `${V1}/events?pageSize=500`)
      assert.equal(
        feed.json.events.filter((e: any) => e.type === 'au.gov.vetrs.webhook-endpoint.disabled').length,
        1,
        'in the change feed once',
      )

      // Enabled again with a receiver that answers: the held event first, then the next, in order.
      failing.answer = () => 204
      const enabled = await rto.reporter.request('PATCH', endpointPath(endpoint.endpointId), { enabled: true })
      assert.deepEqual([enabled.json.enabled, enabled.json.failedAttempts], [true, 0])
      await waitFor('both batches delivered', () =>
        new Set(failing.received.map((r) => r.headers['webhook-id'])).size >= 2 ? true : undefined,
      )
      const events = failing.events()
      assert.equal(events.at(-2)!.id, events[0]!.id, 'the held event again')
      assert.ok(Number(events.at(-1)!.sequence) > Number(events[0]!.sequence))
    } finally {
      await failing.close()
      await watcher.close()
    }
  })

  it('an endpoint whose retry is not due is not taken, even by a worker that listed it as due before the attempt failed', async () => {
    const rto = await newRto(t)
    const receiver = await new Receiver().start()
    try {
      const endpoint = await register(rto, { url: receiver.url() })
      const db = t.service.database.db
      // As another worker's failed attempt leaves it: its retry an hour away, no lease held.
      await webhookRepo.scheduleRetry(db, rto.rto, endpoint.endpointId, 1, 3_600_000)
      const taken = await webhookRepo.claimEndpoint(db, rto.rto, endpoint.endpointId, 60_000)
      assert.equal(taken, undefined, 'not taken before its retry is due')
      const read = await rto.reporter.request('GET', endpointPath(endpoint.endpointId))
      assert.equal(read.json.failedAttempts, 1, 'still waiting for its retry')
      await rto.reporter.request('DELETE', endpointPath(endpoint.endpointId))
    } finally {
      await receiver.close()
    }
  })

  it('a redirect is not followed: it is a failed attempt', async () => {
    const rto = await newRto(t)
    const redirecting = await new Receiver().start()
    redirecting.answer = () => 302
    try {
      const endpoint = await register(rto, { url: redirecting.url() })
      await rto.reporter.newBatch()
      const log = await waitFor('an attempt logged', async () => {
        const page = await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries'))
        return page.json.results.length > 0 ? page.json.results : undefined
      })
      assert.deepEqual([log[0].succeeded, log[0].statusCode, log[0].error], [false, 302, 'redirect not followed'])
      await rto.reporter.request('PATCH', endpointPath(endpoint.endpointId), { enabled: false })
    } finally {
      await redirecting.close()
    }
  })

  it('redelivers the event of a logged delivery, with the same webhook-id, marked as a redelivery in the log', async () => {
    const rto = await newRto(t)
    const own = await new Receiver().start()
    try {
      const endpoint = await register(rto, { url: own.url() })
      await rto.reporter.newBatch()
      await waitFor('a delivery', () => (own.received.length >= 1 ? true : undefined))
      const log = await waitFor('the delivery logged', async () => {
        const page = (await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries'))).json
        return page.numberOfResults === 1 ? page : undefined
      })
      const asked = await rto.reporter.request(
        'POST',
        endpointPath(endpoint.endpointId, `/deliveries/${log.results[0].deliveryId}/redeliver`),
      )
      assert.equal(asked.status, 202, asked.text)
      await waitFor('the redelivery', () => (own.received.length >= 2 ? true : undefined))
      assert.equal(own.received[1]!.headers['webhook-id'], own.received[0]!.headers['webhook-id'])
      new Webhook(endpoint.secret).verify(own.received[1]!.body, own.received[1]!.headers as Record<string, string>)
      const after = await waitFor('the redelivery logged', async () => {
        const page = (await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries'))).json
        return page.numberOfResults === 2 ? page.results : undefined
      })
      assert.deepEqual(
        after.map((d: any) => d.redelivery),
        [true, false],
      )
      const unknown = await rto.reporter.request(
        'POST',
        endpointPath(endpoint.endpointId, `/deliveries/${randomUUID()}/redeliver`),
      )
      assert.equal(unknown.status, 404)
    } finally {
      await own.close()
    }
  })

  it('housekeeping keeps the delivery log bounded: attempts older than the retention are removed', async () => {
    const rto = await newRto(t)
    const endpoint = await register(rto, { url: receiver.url() })
    const db = t.service.database.db
    const attempt = (attemptedAt: Date) => ({
      rto_id: rto.rto,
      attempt_id: randomUUID(),
      endpoint_id: endpoint.endpointId,
      event_id: randomUUID(),
      event_sequence: '1',
      event_type: 'au.gov.vetrs.batch.created',
      attempt: 1,
      redelivery: false,
      attempted_at: attemptedAt,
      succeeded: true,
      status_code: 200,
      error: null,
      latency_ms: 3,
    })
    const old = attempt(new Date(Date.now() - 31 * 86_400_000))
    const recent = attempt(new Date(Date.now() - 29 * 86_400_000))
    await db.insertInto('webhook_attempt').values([old, recent]).execute()
    await housekeepingJob(db, { webhookLogRetentionDays: 30 }).handle({ retentionDays: 90 }, {
      id: randomUUID(),
    } as never)
    const log = (await rto.reporter.request('GET', endpointPath(endpoint.endpointId, '/deliveries'))).json
    assert.deepEqual(
      log.results.map((d: any) => d.deliveryId),
      [recent.attempt_id],
    )
  })

  it('a change that rolled back delivers nothing', async () => {
    const rto = await newRto(t)
    const own = await new Receiver().start()
    try {
      await register(rto, { url: own.url() })
      await assert.rejects(
        t.service.database.db.transaction().execute(async (tx) => {
          await recordEvent(tx, {
            rto: rto.rto,
            type: 'au.gov.vetrs.batch.created',
            subject: 'NSW/transaction-batch/rolled-back',
            data: { transactionBatchToken: 'rolled-back' },
          })
          throw new Error('the change fails after its event')
        }),
      )
      const batch = await rto.reporter.newBatch()
      await waitFor('a delivery', () => (own.received.length >= 1 ? true : undefined))
      await t.service.database.db.selectNoFrom((eb) => eb.val(1).as('x')).execute() // a round trip more
      assert.deepEqual(
        own.events().map((e) => e.data.transactionBatchToken),
        [batch],
      )
    } finally {
      await own.close()
    }
  })
})

describe('webhooks: where they may go (SSRF)', () => {
  const production = webhookSettingsOf(
    loadConfig({ SERVICE_MODE: 'production', LOG_LEVEL: 'silent' }, { signsTokens: false }).webhooks,
  ).policy

  it('production refuses loopback, private, link-local, CGNAT, unspecified and multicast addresses, names resolving to them, and http', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://127.8.9.10/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://10.1.2.3/hook',
      'https://172.16.0.1/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fe80::1]/hook',
      'https://[fd12:3456::1]/hook',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://224.0.0.1/hook',
      'https://localhost/hook',
      'https://localhost./hook',
      'http://example.com/hook',
      'https://user:pass@example.com/hook',
    ]) {
      await assert.rejects(checkDestination(new URL(url), production), DestinationRefused, url)
    }
    await checkDestination(new URL('https://93.184.215.14/hook'), production)
    await checkDestination(new URL('https://[2606:4700::1111]/hook'), production)
  })

  it('an operator may allow private addresses, or some blocks of them, and http', async () => {
    const allowed = (env: Record<string, string>) =>
      webhookSettingsOf(
        loadConfig({ SERVICE_MODE: 'production', LOG_LEVEL: 'silent', ...env }, { signsTokens: false }).webhooks,
      ).policy
    const blocks = allowed({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,fd00::/8', WEBHOOK_ALLOW_HTTP: 'true' })
    await checkDestination(new URL('http://127.0.0.1:9/hook'), blocks)
    await checkDestination(new URL('https://[fd12::1]/hook'), blocks)
    await assert.rejects(checkDestination(new URL('https://10.0.0.1/hook'), blocks), DestinationRefused)
    await checkDestination(new URL('https://10.0.0.1/hook'), allowed({ WEBHOOK_ALLOW_PRIVATE: 'true' }))
    assert.throws(
      () => loadConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/33', LOG_LEVEL: 'silent' }, { signsTokens: false }),
      /WEBHOOK_ALLOWED_CIDRS/,
    )
  })

  describe('a service that refuses private addresses', () => {
    let t: TestService
    let receiver: Receiver
    before(async () => {
      t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_SCHEDULE_SECONDS: '60' } })
      receiver = await new Receiver().start()
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    it('refuses to register an endpoint on loopback, by address or by a name that resolves to it (400 naming the URL)', async () => {
      const rto = await newRto(t)
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        const refused = await rto.reporter.request('POST', `${V1}/webhook-endpoints`, { url: receiver.url(host) })
        assert.equal(refused.status, 400, refused.text)
        assert.equal(refused.json.errors[0].accessPath, '$.url')
        assert.match(refused.json.errors[0].message, /loopback/)
      }
      assert.equal(receiver.received.length, 0)
    })

    it('checks again at delivery and connects only to the address checked: a name that now resolves to loopback reaches nothing', async () => {
      const rto = await newRto(t)
      // As if the name resolved to a public address when it was registered (DNS rebinding): the row is
      // written as registration would have written it.
      const endpointId = randomUUID()
      await t.service.database.db
        .insertInto('webhook_endpoint')
        .values({
          endpoint_id: endpointId,
          rto_id: rto.rto,
          url: receiver.url('localhost'),
          event_types: [],
          description: '',
          secret: `plain.whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          position: '0',
          created_by: rto.clientId,
        })
        .execute()
      await rto.reporter.newBatch()
      const log = await waitFor('an attempt logged', async () => {
        const page = await rto.reporter.request('GET', endpointPath(endpointId, '/deliveries'))
        return page.json.results.length > 0 ? page.json.results : undefined
      })
      assert.equal(log[0].succeeded, false)
      assert.equal(log[0].statusCode, null)
      assert.match(log[0].error, /refused: localhost resolves to .*loopback/)
      assert.equal(receiver.received.length, 0, 'no request reached the receiver')
    })
  })
})
