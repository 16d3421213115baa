// Safer defaults (issue 16, Hardening): what a token must look like to be accepted, how the bearer
// scheme is read, and (below) the signing key in production, response headers, /metrics and logs.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SignJWT, exportPKCS8, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose'
import { call, startTestService, type TestService } from './support/test-service.ts'
import { registerProbeRoutes } from './support/probe-routes.ts'

/** A fresh P-256 key as PKCS#8 PEM, for AUTH_SIGNING_KEY. */
async function newSigningKey(): Promise<{ pem: string; privateKey: CryptoKey }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  return { pem: await exportPKCS8(privateKey), privateKey }
}

describe('token verification accepts only tokens shaped like the ones the service issues', () => {
  let t: TestService
  let privateKey: CryptoKey
  before(async () => {
    const key = await newSigningKey()
    privateKey = key.privateKey
    t = await startTestService({ env: { AUTH_SIGNING_KEY: key.pem, AUTH_TOKEN_TTL_SECONDS: '600' }, extraRoutes: registerProbeRoutes })
  })
  after(() => t.close())

  const now = () => Math.floor(Date.now() / 1000)
  /** Signs with the service's own key: everything right unless the test changes it. */
  const mint = (options: { typ?: string | null; iat?: number | null; exp?: number } = {}) => {
    const header: { alg: string; typ?: string } = { alg: 'ES256' }
    if (options.typ !== null) header.typ = options.typ ?? 'at+jwt'
    const claims: JWTPayload = { client_id: 'demo-rto-1', rto: '90001', scope: 'vet:read' }
    if (options.iat !== null) claims.iat = options.iat ?? now()
    return new SignJWT(claims).setProtectedHeader(header).setIssuer(t.service.config.auth.issuer).setAudience(t.service.config.auth.audience)
      .setSubject('demo-rto-1').setExpirationTime(options.exp ?? now() + 600).sign(privateKey)
  }
  const statusWith = async (token: string) => (await call(t.baseUrl, 'GET', '/probe/records', { token })).status

  it('a token minted like the issuer does is accepted (the control for the refusals below)', async () => {
    assert.equal(await statusWith(await mint()), 200)
  })

  it('issued tokens carry typ at+jwt (RFC 9068)', async () => {
    const token = await t.token()
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'))
    assert.equal(header.typ, 'at+jwt')
  })

  it('a token living longer than AUTH_TOKEN_TTL_SECONDS is 401, even though it has not expired', async () => {
    assert.equal(await statusWith(await mint({ exp: 99999999999 })), 401)
    assert.equal(await statusWith(await mint({ iat: now(), exp: now() + 600 + 3600 })), 401)
  })

  it('a lifetime within the TTL plus a minute of clock skew is accepted', async () => {
    assert.equal(await statusWith(await mint({ iat: now() - 30, exp: now() + 600 })), 200)
  })

  it('a token issued in the future (beyond the clock skew) is 401', async () => {
    assert.equal(await statusWith(await mint({ iat: now() + 3600, exp: now() + 3600 + 300 })), 401)
  })

  it('a token without an issue time is 401', async () => {
    assert.equal(await statusWith(await mint({ iat: null })), 401)
  })

  it('a token with another typ, or none, is 401', async () => {
    assert.equal(await statusWith(await mint({ typ: 'JWT' })), 401)
    assert.equal(await statusWith(await mint({ typ: 'id_token+jwt' })), 401)
    assert.equal(await statusWith(await mint({ typ: null })), 401)
  })
})

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
