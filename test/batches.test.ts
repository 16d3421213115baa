// Transaction batches (spec: States and transitions, Transaction batch; Endpoints, Transaction batch).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { call, loadExample, startTestService, V1, type TestService } from './support/index.ts'

describe('transaction batches', () => {
  let t: TestService
  let rto1: string
  let rto2: string
  before(async () => {
    t = await startTestService()
    rto1 = await t.token('demo-rto-1')
    rto2 = await t.token('demo-rto-2')
  })
  after(() => t.close())

  const createBatch = async (jurisdiction = 'NSW', token = rto1) => {
    const response = await call(t.baseUrl, 'POST', `${V1}/${jurisdiction}/transaction-batch`, { token })
    assert.equal(response.status, 201, response.text)
    return response.json.transactionBatchToken as string
  }

  it('POST create batch: 201 with an opaque token, status NotSubmitted, the jurisdiction and the creation time', async () => {
    const response = await call(t.baseUrl, 'POST', `${V1}/VIC/transaction-batch`, { token: rto1 })
    assert.equal(response.status, 201)
    assert.equal(response.json.status, 'NotSubmitted')
    assert.equal(response.json.jurisdiction, 'VIC')
    assert.match(response.json.transactionBatchToken, /^[A-Za-z0-9_-]{32}$/)
    assert.ok(Math.abs(Date.parse(response.json.createdAt) - Date.now()) < 60_000)
    assert.equal(response.json.submittedAt, null)
  })

  it('tokens are unguessable: two batches never share one', async () => {
    const tokens = new Set(await Promise.all(Array.from({ length: 20 }, () => createBatch())))
    assert.equal(tokens.size, 20)
  })

  it('an empty JSON object or an empty body with a JSON content type is accepted on create; anything else in the body is not', async () => {
    assert.equal((await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, { token: rto1, json: {} })).status, 201)
    assert.equal(
      (
        await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, {
          token: rto1,
          body: '',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      201,
    )
    const refused = await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, {
      token: rto1,
      json: { jurisdiction: 'VIC' },
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(refused.json.errors, [{ accessPath: '$.jurisdiction', message: 'is not a known property' }])
  })

  it('Errors 400: a jurisdiction outside NAT, NSW, VIC, QLD, WA, SA, TAS, ACT, NT is rejected', async () => {
    for (const jurisdiction of ['NAT', 'NSW', 'VIC', 'QLD', 'WA', 'SA', 'TAS', 'ACT', 'NT']) {
      assert.equal(
        (await call(t.baseUrl, 'POST', `${V1}/${jurisdiction}/transaction-batch`, { token: rto1 })).status,
        201,
        jurisdiction,
      )
    }
    for (const jurisdiction of ['nsw', 'XYZ', 'AUS', '01']) {
      const response = await call(t.baseUrl, 'POST', `${V1}/${jurisdiction}/transaction-batch`, { token: rto1 })
      assert.equal(response.status, 400, jurisdiction)
      assert.equal(response.json.errors[0].accessPath, 'path.jurisdiction')
    }
  })

  it('GET batch returns status, jurisdiction, record counts per resource type and times', async () => {
    const token = await createBatch('QLD')
    const upload = await call(t.baseUrl, 'POST', `${V1}/QLD/transaction-batch/${token}/student`, {
      token: rto1,
      json: await loadExample('student'),
    })
    assert.equal(upload.status, 201, upload.text)
    const response = await call(t.baseUrl, 'GET', `${V1}/QLD/transaction-batch/${token}`, { token: rto1 })
    assert.equal(response.status, 200)
    assert.equal(response.json.status, 'NotSubmitted')
    assert.equal(response.json.jurisdiction, 'QLD')
    assert.equal(response.json.totalRecords, 1)
    assert.deepEqual(response.json.recordCounts, {
      Student: 1,
      DeliveryLocation: 0,
      Program: 0,
      ProgramOffering: 0,
      ProgramEnrolment: 0,
      Subject: 0,
      SubjectOffering: 0,
      SubjectEnrolment: 0,
    })
    assert.ok(Date.parse(response.json.updatedAt) >= Date.parse(response.json.createdAt))
  })

  it("GET list pages the caller's batches of that jurisdiction, newest first", async () => {
    const first = await createBatch('TAS')
    const second = await createBatch('TAS')
    const page = await call(t.baseUrl, 'GET', `${V1}/TAS/transaction-batch?pageSize=2`, { token: rto1 })
    assert.equal(page.status, 200)
    assert.deepEqual(
      page.json.results.map((b: { transactionBatchToken: string }) => b.transactionBatchToken),
      [second, first],
    )
    assert.ok(page.json.results.every((b: { jurisdiction: string }) => b.jurisdiction === 'TAS'))
    assert.equal(page.json.pageSize, 2)
  })

  it('a batch of another RTO is 404 on every route, and never listed', async () => {
    const token = await createBatch('NSW', rto1)
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/student'],
      ['POST', '/student'],
      ['GET', '/student/6c3f6f9e-2b1d-4c8a-9e7f-1a2b3c4d5e6f'],
      ['DELETE', '/student/6c3f6f9e-2b1d-4c8a-9e7f-1a2b3c4d5e6f'],
    ] as const) {
      const response = await call(t.baseUrl, method, `${V1}/NSW/transaction-batch/${token}${path}`, {
        token: rto2,
        ...(method === 'POST' ? { json: await loadExample('student') } : {}),
      })
      assert.equal(response.status, 404, `${method} ${path}`)
      assert.equal(response.json.type, '/problems/not-found')
    }
    const listed = await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch?pageSize=500`, { token: rto2 })
    assert.ok(!listed.json.results.some((b: { transactionBatchToken: string }) => b.transactionBatchToken === token))
    assert.equal((await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${token}`, { token: rto1 })).status, 200)
  })

  it('a batch under another jurisdiction segment is 404', async () => {
    const token = await createBatch('WA')
    assert.equal((await call(t.baseUrl, 'GET', `${V1}/SA/transaction-batch/${token}`, { token: rto1 })).status, 404)
    assert.equal(
      (
        await call(t.baseUrl, 'POST', `${V1}/SA/transaction-batch/${token}/student`, {
          token: rto1,
          json: await loadExample('student'),
        })
      ).status,
      404,
    )
  })

  it('an unknown batch token is 404', async () => {
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/no-such-batch`, { token: rto1 })).status,
      404,
    )
  })

  it('DELETE discards a NotSubmitted batch and everything in it', async () => {
    const token = await createBatch('ACT')
    await call(t.baseUrl, 'POST', `${V1}/ACT/transaction-batch/${token}/student`, {
      token: rto1,
      json: await loadExample('student'),
    })
    const discarded = await call(t.baseUrl, 'DELETE', `${V1}/ACT/transaction-batch/${token}`, { token: rto1 })
    assert.equal(discarded.status, 204)
    assert.equal((await call(t.baseUrl, 'GET', `${V1}/ACT/transaction-batch/${token}`, { token: rto1 })).status, 404)
    const rows = await t.service.database.db
      .selectFrom('batch_record')
      .select('resource_uid')
      .where('transaction_batch_token', '=', token)
      .execute()
    assert.equal(rows.length, 0)
  })

  it('a Submitted batch cannot be discarded or changed: 409', async () => {
    const token = await createBatch('NT')
    await call(t.baseUrl, 'POST', `${V1}/NT/transaction-batch/${token}/student`, {
      token: rto1,
      json: await loadExample('student'),
    })
    // Submitting arrives with the validation issue; the state is set directly here.
    await t.service.database.db
      .updateTable('transaction_batch')
      .set({ status: 'Submitted', submitted_at: new Date() })
      .where('transaction_batch_token', '=', token)
      .execute()
    const student = (await loadExample('student')) as Record<string, unknown>
    for (const [method, path, json] of [
      ['DELETE', '', undefined],
      ['POST', '/student', student],
      ['DELETE', `/student/${student.studentUID}`, undefined],
    ] as const) {
      const response = await call(t.baseUrl, method, `${V1}/NT/transaction-batch/${token}${path}`, {
        token: rto1,
        ...(json ? { json } : {}),
      })
      assert.equal(response.status, 409, `${method} ${path}`)
      assert.equal(response.json.type, '/problems/conflict')
    }
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/NT/transaction-batch/${token}/student`, { token: rto1 })).json
        .numberOfResults,
      1,
    )
  })

  it('Versioning 5: the older routes without the jurisdiction segment are aliases', async () => {
    const token = await createBatch('NSW')
    const student = (await loadExample('student')) as Record<string, unknown>
    assert.equal(
      (await call(t.baseUrl, 'POST', `${V1}/transaction-batch/${token}/student`, { token: rto1, json: student }))
        .status,
      201,
    )
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/transaction-batch/${token}/student/${student.studentUID}`, { token: rto1 }))
        .status,
      200,
    )
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/transaction-batch/${token}`, { token: rto1 })).json.recordCounts.Student,
      1,
    )
    const all = await call(t.baseUrl, 'GET', `${V1}/transaction-batch?pageSize=500`, { token: rto1 })
    assert.ok(all.json.results.some((b: { transactionBatchToken: string }) => b.transactionBatchToken === token))
    assert.equal((await call(t.baseUrl, 'DELETE', `${V1}/transaction-batch/${token}`, { token: rto1 })).status, 204)
  })

  it('a token without the report scope cannot create batches: 403', async () => {
    const { addClient } = await import('../src/platform/auth/clients.service.ts')
    const { secret } = await addClient(t.service.database.db, {
      clientId: 'batch-reader',
      rto: '90001',
      scopes: ['vet:read'],
    })
    const reader = await t.token('batch-reader', secret)
    assert.equal((await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, { token: reader })).status, 403)
  })
})
