// Safer defaults (issue 16, Hardening): how the bearer scheme is read.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { call, startTestService, type TestService } from './support/test-service.ts'
import { registerProbeRoutes } from './support/probe-routes.ts'

describe('the bearer scheme', () => {
  let t: TestService
  before(async () => { t = await startTestService({ extraRoutes: registerProbeRoutes }) })
  after(() => t.close())

  it('the Bearer scheme is case-insensitive (RFC 7235): bearer and BEARER are accepted', async () => {
    const token = await t.token()
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const response = await call(t.baseUrl, 'GET', '/probe/records', { headers: { authorization: `${scheme} ${token}` } })
      assert.equal(response.status, 200, scheme)
    }
    const other = await call(t.baseUrl, 'GET', '/probe/records', { headers: { authorization: `Bearers ${token}` } })
    assert.equal(other.status, 401, 'another scheme that merely starts with bearer')
  })
})
