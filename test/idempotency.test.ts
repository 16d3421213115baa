// Idempotency keys (issue 34; docs/decisions.md, "Idempotency keys (issue 34)"): a POST sent again
// with the same Idempotency-Key and the same request gets the first answer and the work is done once;
// the same key for another request is 422; a key whose first request is still running is 409 with
// Retry-After (and is taken over once that request's claim lapses); keys expire after 24 hours and
// housekeeping removes them; keys belong to one client of one RTO; the SDK sends a key on every POST
// and so retries a POST whose answer was lost, with the work done once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import {
  call,
  declarationBody,
  minimalUnitRecord,
  newClientOf,
  newRto,
  PERIOD,
  startTestService,
  V1,
  waitFor,
  type Rto,
  type TestService,
} from './support/index.ts'
import { claimKey } from '../src/platform/idempotency/idempotency.repo.ts'
import { requestFingerprint } from '../src/platform/http/idempotency.ts'
import { housekeepingJob } from '../src/modules/housekeeping/index.ts'
import { NetworkError, ServiceError, Vetrs } from '../packages/client/src/index.ts'
import { FaultProxy } from '../packages/client/test/support/fault-proxy.ts'
import { recordsOf, unitRecord } from '../packages/client/test/support/service.ts'
import { addClient } from '../src/platform/auth/clients.service.ts'
import { ALL_SCOPES } from '../src/platform/auth/scopes.ts'

const BATCHES = `${V1}/NSW/transaction-batch`

/** Test-only routes: one that fails with a 500 the first time, one that runs until the test lets it answer. */
const routes = {
  flakyCalls: 0,
  heldCalls: 0,
  release: () => {},
}
function registerTestRoutes(app: FastifyInstance): void {
  const config = { scope: 'vet:report' as const }
  app.post('/test/flaky', { config }, async (_request, reply) => {
    routes.flakyCalls++
    if (routes.flakyCalls === 1) throw new Error('the first call fails')
    return reply.code(201).send({ call: routes.flakyCalls })
  })
  app.post('/test/held', { config }, async (_request, reply) => {
    routes.heldCalls++
    await new Promise<void>((resolve) => {
      routes.release = resolve
    })
    return reply.code(201).send({ call: routes.heldCalls })
  })
}

describe('idempotency keys', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ extraRoutes: registerTestRoutes })
  })
  after(() => t.close())

  const post = (rto: Rto, path: string, key: string | undefined, json?: unknown) =>
    call(t.baseUrl, 'POST', path, {
      token: rto.reporter.token,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      ...(json === undefined ? {} : { json }),
    })
  const batchCount = async (rto: Rto, jurisdiction = 'NSW') => {
    const listed = await rto.reporter.request('GET', `${V1}/${jurisdiction}/transaction-batch`)
    assert.equal(listed.status, 200, listed.text)
    return listed.json.numberOfResults as number
  }
  const keyRow = (rto: Rto, key: string) =>
    t.service.database.db
      .selectFrom('idempotency_key')
      .selectAll()
      .where('rto_id', '=', rto.rto)
      .where('client_id', '=', rto.clientId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst()

  it('the same key and request: the first answer again (status, body, content type), marked replayed, and one batch created', async () => {
    const rto = await newRto(t)
    const key = randomUUID()
    const first = await post(rto, BATCHES, key)
    assert.equal(first.status, 201, first.text)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    const again = await post(rto, BATCHES, key)
    assert.equal(again.status, 201, again.text)
    assert.equal(again.text, first.text, 'the same body, byte for byte')
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'))
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal(await batchCount(rto), 1, 'the work was done once')
    // Without a key, each request does the work, as before.
    assert.equal((await post(rto, BATCHES, undefined)).status, 201)
    assert.equal(await batchCount(rto), 2)
  })

  it('a submit sent twice with one key: the second gets the first 200 (a second submit would be 409 batch-submitted), the records held once', async () => {
    const rto = await newRto(t)
    const batch = await rto.reporter.batchWith(await minimalUnitRecord())
    await rto.reporter.validate(batch)
    const key = randomUUID()
    const path = rto.reporter.batchPath(batch, '/submit')
    const first = await post(rto, path, key)
    assert.equal(first.status, 200, first.text)
    const again = await post(rto, path, key)
    assert.equal(again.status, 200, again.text)
    assert.deepEqual(again.json, first.json)
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    const withoutKey = await post(rto, path, undefined)
    assert.equal(withoutKey.status, 409, 'the work itself is not repeatable')
    assert.equal(withoutKey.json.reason, 'batch-submitted')
    const held = await t.service.database.db
      .selectFrom('held_record')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rto_id', '=', rto.rto)
      .executeTakeFirstOrThrow()
    assert.equal(Number(held.n), first.json.numberOfRecordsSubmitted, 'one version of each record')
  })

  it('a refusal is an answer too: a 409 with a key is given again with the same key, even after the state changed', async () => {
    const rto = await newRto(t)
    const batch = await rto.reporter.batchWith(await minimalUnitRecord())
    const key = randomUUID()
    const path = rto.reporter.batchPath(batch, '/submit')
    const refused = await post(rto, path, key)
    assert.equal(refused.status, 409)
    assert.equal(refused.json.reason, 'validation-not-requested')
    await rto.reporter.validate(batch)
    const again = await post(rto, path, key)
    assert.equal(again.status, 409)
    assert.equal(again.json.reason, 'validation-not-requested')
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal((await post(rto, path, randomUUID())).status, 200, 'a new key is a new request')
  })

  it('the same key with another body or path: 422 idempotency-key-reused, nothing done', async () => {
    const rto = await newRto(t)
    await rto.assessor.assess(PERIOD)
    const key = randomUUID()
    const declared = await post(rto, `${V1}/declaration`, key, declarationBody({ RTOUserName: 'First Person' }))
    assert.equal(declared.status, 200, declared.text)
    const otherBody = await post(rto, `${V1}/declaration`, key, declarationBody({ RTOUserName: 'Second Person' }))
    assert.equal(otherBody.status, 422, otherBody.text)
    assert.equal(otherBody.json.type, '/problems/idempotency-key-reused')
    assert.match(otherBody.headers.get('content-type') ?? '', /application\/problem\+json/)
    const otherPath = await post(rto, BATCHES, key)
    assert.equal(otherPath.status, 422, otherPath.text)
    assert.equal(await batchCount(rto), 0, 'no batch created')
    const listed = await rto.reporter.request(
      'GET',
      `${V1}/declaration?reportingPeriodNumber=${PERIOD}&jurisdiction=NSW`,
    )
    assert.equal(listed.json.results[0].declaration.RTOUserName, 'First Person', 'the second declaration was not made')
    // The same body with its keys in another order is the same request.
    const body = declarationBody({ RTOUserName: 'First Person' })
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const same = await post(rto, `${V1}/declaration`, key, reordered)
    assert.equal(same.status, 200, same.text)
    assert.equal(same.headers.get('idempotent-replayed'), 'true')
  })

  it('a key whose first request is in progress: 409 idempotency-key-in-progress with Retry-After, nothing done; once its claim lapses the key is taken over', async () => {
    const rto = await newRto(t)
    const key = randomUUID()
    // Another process of the service is running the first request with this key.
    const claim = await claimKey(
      t.service.database.db,
      { rto: rto.rto, clientId: rto.clientId, key },
      requestFingerprint('POST', BATCHES, undefined),
      { leaseMs: 15_000, keepMs: 86_400_000 },
    )
    assert.equal(claim.kind, 'claimed')
    const busy = await post(rto, BATCHES, key)
    assert.equal(busy.status, 409, busy.text)
    assert.equal(busy.json.type, '/problems/idempotency-key-in-progress')
    const retryAfter = Number(busy.headers.get('retry-after'))
    assert.ok(retryAfter >= 1 && retryAfter <= 15, `Retry-After ${retryAfter}`)
    assert.equal(await batchCount(rto), 0)
    // The process died: its claim is not renewed and lapses.
    await sql`UPDATE idempotency_key SET locked_until = now() - interval '1 second'
      WHERE rto_id = ${rto.rto} AND idempotency_key = ${key}`.execute(t.service.database.db)
    const taken = await post(rto, BATCHES, key)
    assert.equal(taken.status, 201, taken.text)
    assert.equal(await batchCount(rto), 1)
    assert.equal((await keyRow(rto, key))?.state, 'answered')
  })

  it('a request still running holds its key: the same key meanwhile is 409 with Retry-After; once it has answered, its answer', async () => {
    const rto = await newRto(t)
    const key = randomUUID()
    routes.heldCalls = 0
    const first = post(rto, '/test/held', key)
    await waitFor('the first request running', async () => (routes.heldCalls === 1 ? true : undefined))
    const meanwhile = await post(rto, '/test/held', key)
    assert.equal(meanwhile.status, 409, meanwhile.text)
    assert.equal(meanwhile.json.type, '/problems/idempotency-key-in-progress')
    assert.ok(Number(meanwhile.headers.get('retry-after')) >= 1)
    routes.release()
    assert.equal((await first).status, 201)
    const after = await post(rto, '/test/held', key)
    assert.equal(after.status, 201)
    assert.deepEqual(after.json, { call: 1 })
    assert.equal(after.headers.get('idempotent-replayed'), 'true')
    assert.equal(routes.heldCalls, 1, 'the work was done once')
  })

  it('a 5xx answer is not kept: the retry with the same key does the work, and its answer is kept', async () => {
    const rto = await newRto(t)
    const key = randomUUID()
    routes.flakyCalls = 0
    const failed = await post(rto, '/test/flaky', key)
    assert.equal(failed.status, 500, failed.text)
    assert.equal(await keyRow(rto, key), undefined, 'the key was released')
    const retried = await post(rto, '/test/flaky', key)
    assert.equal(retried.status, 201, retried.text)
    assert.deepEqual(retried.json, { call: 2 })
    const again = await post(rto, '/test/flaky', key)
    assert.deepEqual(again.json, { call: 2 })
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal(routes.flakyCalls, 2)
  })

  it('concurrent requests with one key: one does the work, the others get its answer or 409 in progress', async () => {
    const rto = await newRto(t)
    const key = randomUUID()
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(rto, BATCHES, key)))
    const created = answers.filter((a) => a.status === 201)
    const busy = answers.filter((a) => a.status === 409)
    assert.equal(created.length + busy.length, 6, answers.map((a) => a.status).join(','))
    assert.ok(created.length >= 1)
    assert.equal(new Set(created.map((a) => a.json.transactionBatchToken)).size, 1, 'one batch token in every 201')
    for (const a of busy) assert.equal(a.json.type, '/problems/idempotency-key-in-progress')
    assert.equal(await batchCount(rto), 1)
  })

  it('after 24 hours a key is new again, and housekeeping removes expired keys', async () => {
    const rto = await newRto(t)
    const [old, fresh] = [randomUUID(), randomUUID()]
    const first = await post(rto, BATCHES, old)
    assert.equal((await post(rto, BATCHES, fresh)).status, 201)
    const row = await keyRow(rto, old)
    assert.ok(row)
    const keptMs = row.expires_at.getTime() - row.created_at.getTime()
    assert.equal(keptMs, 24 * 60 * 60 * 1000, 'kept 24 hours')
    await sql`UPDATE idempotency_key SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'
      WHERE rto_id = ${rto.rto} AND idempotency_key = ${old}`.execute(t.service.database.db)
    const later = await post(rto, BATCHES, old)
    assert.equal(later.status, 201)
    assert.equal(later.headers.get('idempotent-replayed'), null)
    assert.notEqual(later.json.transactionBatchToken, first.json.transactionBatchToken, 'the work was done again')
    await sql`UPDATE idempotency_key SET expires_at = now() - interval '1 hour'
      WHERE rto_id = ${rto.rto} AND idempotency_key = ${old}`.execute(t.service.database.db)
    await housekeepingJob(t.service.database.db).handle({ retentionDays: 90 }, { id: randomUUID() } as never)
    assert.equal(await keyRow(rto, old), undefined, 'the expired key is gone')
    assert.ok(await keyRow(rto, fresh), 'a key within its 24 hours stays')
  })

  it('keys belong to one client of one RTO: the same key from another client or RTO is its own request', async () => {
    const rto = await newRto(t)
    const sameRtoOtherClient = await newClientOf(t, rto.rto)
    const otherRto = await newRto(t)
    const key = randomUUID()
    const tokens = []
    for (const who of [rto, sameRtoOtherClient, otherRto]) {
      const answer = await post(who, BATCHES, key)
      assert.equal(answer.status, 201, answer.text)
      assert.equal(answer.headers.get('idempotent-replayed'), null)
      tokens.push(answer.json.transactionBatchToken)
    }
    assert.equal(new Set(tokens).size, 3)
    const again = await post(rto, BATCHES, key)
    assert.equal(again.headers.get('idempotent-replayed'), 'true', 'the first client repeating it gets its own answer')
    assert.equal(again.json.transactionBatchToken, tokens[0])
    assert.equal(await batchCount(rto), 2, 'two batches for the RTO, one per client')
    assert.equal(await batchCount(otherRto), 1)
  })

  it('a key must be 1 to 255 printable ASCII characters: 400 naming the header, nothing done', async () => {
    const rto = await newRto(t)
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9']) {
      const answer = await post(rto, BATCHES, key)
      assert.equal(answer.status, 400, `${JSON.stringify(key)}: ${answer.text}`)
      assert.deepEqual(
        answer.json.errors.map((e: { accessPath: string }) => e.accessPath),
        ['header.Idempotency-Key'],
      )
    }
    assert.equal((await post(rto, BATCHES, 'x'.repeat(255))).status, 201)
    assert.equal(await batchCount(rto), 1)
  })

  it('the OpenAPI description: every POST that takes effect names the shared Idempotency-Key parameter and its 409 and 422; uid-match does not', async () => {
    const document = (await call(t.baseUrl, 'GET', '/openapi.json')).json
    assert.equal(document.components.parameters.IdempotencyKey.name, 'Idempotency-Key')
    assert.equal(document.components.parameters.IdempotencyKey.in, 'header')
    const withKey: string[] = []
    for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
      const operation = methods.post
      if (!operation) continue
      const refs = (operation.parameters ?? []).map((p: { $ref?: string }) => p.$ref)
      if (!refs.includes('#/components/parameters/IdempotencyKey')) continue
      withKey.push(path)
      assert.ok(operation.responses['422'], `${path}: 422`)
      assert.match(JSON.stringify(operation.responses['409']), /idempotency-key-in-progress|IdempotencyKeyInProgress/)
    }
    const expected = [
      `${V1}/{jurisdiction}/transaction-batch`,
      `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/student`,
      `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/records`,
      `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate`,
      `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/submit`,
      `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`,
      `${V1}/declaration`,
      `${V1}/{jurisdiction}/nat-import`,
    ]
    for (const path of expected) assert.ok(withKey.includes(path), `${path} takes the key (${withKey.join(', ')})`)
    assert.ok(!withKey.includes(`${V1}/uid-match`), 'uid-match is a read')
    assert.ok(!withKey.includes('/oauth2/token'))
  })
})

describe('the SDK and idempotency keys', () => {
  let t: TestService
  let proxy: FaultProxy
  let sdk: Vetrs
  let rto: { rto: string; clientId: string }
  before(async () => {
    t = await startTestService()
    proxy = await new FaultProxy(t.baseUrl).start()
    rto = { rto: `K${randomUUID().slice(0, 8)}`, clientId: `sdk-${randomUUID().slice(0, 8)}` }
    const { secret } = await addClient(t.service.database.db, { ...rto, scopes: [...ALL_SCOPES] })
    sdk = new Vetrs({
      baseUrl: proxy.baseUrl,
      credentials: { clientId: rto.clientId, clientSecret: secret },
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
    })
  })
  after(async () => {
    await proxy.close()
    await t.close()
  })

  it('a POST whose answer was lost is sent again with the same key: the first answer comes back and the work is done once; uploads go without a key', async () => {
    proxy.clear()
    proxy.injectTimes(1, 'drop-answer', (r) => r.method === 'POST' && r.path.endsWith('/transaction-batch'))
    const created = await sdk.createBatch('NSW')
    assert.equal(proxy.forwarded('POST', /\/transaction-batch$/).length, 2, 'sent twice')
    const batches = await t.service.database.db
      .selectFrom('transaction_batch')
      .select('transaction_batch_token')
      .where('rto_id', '=', rto.rto)
      .execute()
    assert.deepEqual(
      batches.map((b) => b.transaction_batch_token),
      [created.transactionBatchToken],
      'one batch, the one answered',
    )
    const token = created.transactionBatchToken
    const sent = proxy.forwarded('POST', /\/transaction-batch$/).map((s) => s.idempotencyKey)
    assert.ok(sent[0] && sent[1] === sent[0], 'one key on both attempts')
    await sdk.uploadMany('NSW', token, recordsOf(await unitRecord()))
    const uploads = proxy.forwarded('POST', /\/records$/)
    assert.ok(uploads.length > 0)
    assert.ok(
      uploads.every((s) => s.idempotencyKey === undefined),
      'uploads are safe to repeat by UID: no key',
    )
    proxy.injectTimes(1, 'drop-answer', (r) => r.method === 'POST' && r.path.endsWith('/validate'))
    await sdk.validate('NSW', token)
    proxy.injectTimes(1, 'drop-answer', (r) => r.method === 'POST' && r.path.endsWith('/submit'))
    proxy.injectTimes(1, { status: 503, headers: { 'retry-after': '0' } }, (r) => r.path.endsWith('/submit'))
    const submitted = await sdk.submitBatch('NSW', token)
    assert.equal(submitted.status, 'Submitted')
    assert.deepEqual(
      proxy.seen.filter((s) => s.path.endsWith('/submit')).map((s) => s.status),
      ['dropped', 503, 200],
      'the answer lost, a 503, then the first answer again',
    )
    const runs = await t.service.database.db
      .selectFrom('validation_run')
      .select('run_id')
      .where('rto_id', '=', rto.rto)
      .execute()
    assert.equal(runs.length, 1, 'one validation run for two requests')
  })

  it('every error carries the request id: a ServiceError the id the service answered with, a NetworkError the one sent', async () => {
    proxy.clear()
    const refused = await sdk.batch('NSW', randomUUID()).catch((error: unknown) => error)
    assert.ok(refused instanceof ServiceError)
    assert.equal(refused.status, 404)
    assert.ok(refused.requestId)
    assert.equal(refused.requestId, refused.problem?.traceId)
    proxy.inject((r) => (r.path.includes('/transaction-batch/') ? 'drop' : undefined))
    const lost = await sdk.batch('NSW', randomUUID()).catch((error: unknown) => error)
    assert.ok(lost instanceof NetworkError, String(lost))
    assert.match(lost.requestId ?? '', /^[0-9a-f-]{36}$/)
    proxy.clear()
  })
})
