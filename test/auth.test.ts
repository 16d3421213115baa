// Authentication (spec: Authentication; Errors 401/403): OAuth 2.0 client credentials, signed JWT
// access tokens, and every way a token can be refused, with nothing persisted.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SignJWT, createLocalJWKSet, generateKeyPair, jwtVerify, UnsecuredJWT } from 'jose'
import {
  call,
  registerProbeRoutes,
  startTestService,
  storedProbeRecords,
  validRecord,
  type TestService,
} from './support/index.ts'
import * as clients from '../src/platform/auth/clients.service.ts'
import { loadSigningKey } from '../src/platform/auth/signing-key.ts'

describe('authentication', () => {
  let t: TestService
  let readerSecret = ''
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
    readerSecret = (
      await clients.addClient(t.service.database.db, { clientId: 'reader-only', rto: '90001', scopes: ['vet:read'] })
    ).secret
  })
  after(() => t.close())

  const form = (fields: Record<string, string>) => new URLSearchParams(fields)
  const storedCount = (token: string) => storedProbeRecords(t.baseUrl, token)

  it('issues a Bearer token for client credentials in the form body', async () => {
    const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: form({ grant_type: 'client_credentials', client_id: 'demo-rto-1', client_secret: 'demo-secret-1' }),
    })
    assert.equal(response.status, 200)
    assert.equal(response.json.token_type, 'Bearer')
    assert.equal(response.json.expires_in, 1800)
    assert.equal(response.headers.get('cache-control'), 'no-store')
    assert.match(response.json.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/)
  })

  it('issues a token for client credentials sent with HTTP Basic authentication', async () => {
    const basic = Buffer.from('demo-rto-2:demo-secret-2').toString('base64')
    const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: form({ grant_type: 'client_credentials' }),
      headers: { authorization: `Basic ${basic}` },
    })
    assert.equal(response.status, 200)
    const jwks = (await call(t.baseUrl, 'GET', '/.well-known/jwks.json')).json
    const { payload, protectedHeader } = await jwtVerify(response.json.access_token, createLocalJWKSet(jwks))
    assert.equal(protectedHeader.alg, 'ES256')
    assert.equal(payload.rto, '90002')
    assert.equal(payload.client_id, 'demo-rto-2')
    assert.deepEqual(String(payload.scope).split(' ').sort(), [
      'vet:declare',
      'vet:read',
      'vet:reference-data',
      'vet:report',
    ])
  })

  it('refuses wrong client credentials with 401 invalid_client problem details', async () => {
    const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: form({ grant_type: 'client_credentials', client_id: 'demo-rto-1', client_secret: 'nope' }),
    })
    assert.equal(response.status, 401)
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.equal(response.json.error, 'invalid_client')
    assert.equal(response.json.type, '/problems/invalid-client')
  })

  it('refuses a grant type other than client_credentials', async () => {
    const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: form({ grant_type: 'password', client_id: 'demo-rto-1', client_secret: 'demo-secret-1' }),
    })
    assert.equal(response.status, 400)
    assert.equal(response.json.error, 'unsupported_grant_type')
  })

  it('refuses a requested scope the client was not granted', async () => {
    const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
      body: form({
        grant_type: 'client_credentials',
        client_id: 'reader-only',
        client_secret: readerSecret,
        scope: 'vet:report',
      }),
    })
    assert.equal(response.status, 400)
    assert.equal(response.json.error, 'invalid_scope')
  })
  it('Authentication 2: a missing token is 401 with WWW-Authenticate: Bearer and nothing is persisted', async () => {
    const response = await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord() })
    assert.equal(response.status, 401)
    assert.equal(response.headers.get('www-authenticate'), 'Bearer')
    assert.equal(response.json.type, '/problems/unauthenticated')
    assert.equal(await storedCount(await t.token()), 0)
  })

  it('Authentication 2: a malformed token is 401', async () => {
    for (const header of ['Bearer', 'Bearer not-a-jwt', 'Basic abc', 'Bearer a.b.c']) {
      const response = await call(t.baseUrl, 'POST', '/probe/records', {
        json: validRecord(),
        headers: { authorization: header },
      })
      assert.equal(response.status, 401, header)
    }
  })

  it('Authentication 2: an expired token is 401 and nothing is persisted', async () => {
    const key = await loadSigningKey(t.service.database.db, undefined)
    const expired = await new SignJWT({ client_id: 'demo-rto-1', rto: '90001', scope: 'vet:report vet:read' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(t.service.config.auth.issuer)
      .setAudience(t.service.config.auth.audience)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key.privateKey)
    const response = await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: expired })
    assert.equal(response.status, 401)
    assert.equal(await storedCount(await t.token()), 0)
  })

  it('Authentication 2: a token signed by a foreign key is 401', async () => {
    const { privateKey } = await generateKeyPair('ES256')
    const key = await loadSigningKey(t.service.database.db, undefined)
    const forged = await new SignJWT({ client_id: 'demo-rto-1', rto: '90001', scope: 'vet:report' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(t.service.config.auth.issuer)
      .setAudience(t.service.config.auth.audience)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey)
    assert.equal((await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: forged })).status, 401)
  })

  it('Authentication 2: an unsigned token (alg none) is 401', async () => {
    const unsigned = new UnsecuredJWT({ client_id: 'demo-rto-1', rto: '90001', scope: 'vet:report' })
      .setIssuer(t.service.config.auth.issuer)
      .setAudience(t.service.config.auth.audience)
      .setIssuedAt()
      .setExpirationTime('10m')
      .encode()
    assert.equal(
      (await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: unsigned })).status,
      401,
    )
  })

  it('Authentication 2: a token for another audience is 401', async () => {
    const key = await loadSigningKey(t.service.database.db, undefined)
    const wrongAudience = await new SignJWT({ client_id: 'demo-rto-1', rto: '90001', scope: 'vet:report' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(t.service.config.auth.issuer)
      .setAudience('another-service')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key.privateKey)
    assert.equal(
      (await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: wrongAudience })).status,
      401,
    )
  })

  it('Authentication 2: a token of a disabled client is 401, and the client gets no new token', async () => {
    const { secret } = await clients.addClient(t.service.database.db, {
      clientId: 'to-disable',
      rto: '90003',
      scopes: ['vet:report', 'vet:read'],
    })
    const token = await t.token('to-disable', secret)
    assert.equal((await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token })).status, 201)
    await clients.setEnabled(t.service.database.db, 'to-disable', false)
    const refused = await call(t.baseUrl, 'POST', '/probe/records', {
      json: validRecord({ recordUID: '0b1c2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d' }),
      token,
    })
    assert.equal(refused.status, 401)
    await assert.rejects(t.token('to-disable', secret), /401/)
  })

  it('Errors 403: a token without the needed scope is 403 and nothing is persisted', async () => {
    const token = await t.token('reader-only', readerSecret)
    const response = await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token })
    assert.equal(response.status, 403)
    assert.equal(response.json.type, '/problems/insufficient-scope')
    assert.match(response.headers.get('www-authenticate') ?? '', /insufficient_scope/)
    assert.equal(await storedCount(token), 0)
  })

  it('data of another RTO is invisible: each RTO pages only its own records', async () => {
    const rto1 = await t.token('demo-rto-1')
    const rto2 = await t.token('demo-rto-2')
    assert.equal(
      (
        await call(t.baseUrl, 'POST', '/probe/records', {
          json: validRecord({ recordUID: '7d0e8f1a-2b3c-4d5e-9f60-718293a4b5c6' }),
          token: rto1,
        })
      ).status,
      201,
    )
    const own = (await call(t.baseUrl, 'GET', '/probe/records', { token: rto1 })).json
    const other = (await call(t.baseUrl, 'GET', '/probe/records', { token: rto2 })).json
    assert.ok(own.results.some((r: { recordUID: string }) => r.recordUID === '7d0e8f1a-2b3c-4d5e-9f60-718293a4b5c6'))
    assert.equal(other.numberOfResults, 0)
    const foreign = await call(t.baseUrl, 'GET', '/probe/records/7d0e8f1a-2b3c-4d5e-9f60-718293a4b5c6', { token: rto2 })
    assert.equal(foreign.status, 404, "another RTO's record is not found, never forbidden")
    assert.equal(
      (await call(t.baseUrl, 'GET', '/probe/records/7d0e8f1a-2b3c-4d5e-9f60-718293a4b5c6', { token: rto1 })).status,
      200,
    )
  })

  it('rotating a secret makes the old one stop working', async () => {
    const { secret: first } = await clients.addClient(t.service.database.db, {
      clientId: 'rotating',
      rto: '90004',
      scopes: ['vet:read'],
    })
    const { secret: second } = await clients.rotateSecret(t.service.database.db, 'rotating')
    await assert.rejects(t.token('rotating', first), /401/)
    assert.ok(await t.token('rotating', second))
  })

  it('client secrets are stored hashed, never in clear', async () => {
    const row = await t.service.database.db
      .selectFrom('api_client')
      .select('secret_hash')
      .where('client_id', '=', 'demo-rto-1')
      .executeTakeFirstOrThrow()
    assert.match(row.secret_hash, /^scrypt\$/)
    assert.ok(!row.secret_hash.includes('demo-secret-1'))
  })
})

describe('external identity provider', () => {
  it('accepts tokens of the configured issuer, audience and JWKS, and reads the RTO from the configured claim', async () => {
    // The identity provider's JWKS is served by a second test service route on loopback.
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
    const { exportJWK } = await import('jose')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256' }
    const idp = await startTestService({
      extraRoutes: (app) => app.get('/idp/jwks', { config: { public: true } }, async () => ({ keys: [jwk] })),
    })
    let t: TestService | undefined
    try {
      t = await startTestService({
        env: {
          AUTH_EXTERNAL_ISSUER: 'https://idp.example',
          AUTH_EXTERNAL_AUDIENCE: 'vetrs',
          AUTH_EXTERNAL_JWKS_URL: `${idp.baseUrl}/idp/jwks`,
          AUTH_EXTERNAL_RTO_CLAIM: 'org',
        },
        extraRoutes: registerProbeRoutes,
      })
      const sign = (claims: Record<string, unknown>, audience = 'vetrs') =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
          .setIssuer('https://idp.example')
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey)
      const good = await sign({ client_id: 'sms-a', org: '91234', scope: 'vet:report vet:read' })
      assert.equal((await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: good })).status, 201)
      const listed = (await call(t.baseUrl, 'GET', '/probe/records', { token: good })).json
      assert.equal(listed.numberOfResults, 1)
      const noRto = await sign({ client_id: 'sms-a', scope: 'vet:report' })
      assert.equal((await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: noRto })).status, 401)
      const wrongAudience = await sign({ client_id: 'sms-a', org: '91234', scope: 'vet:report' }, 'other')
      assert.equal(
        (await call(t.baseUrl, 'POST', '/probe/records', { json: validRecord(), token: wrongAudience })).status,
        401,
      )
    } finally {
      await t?.close()
      await idp.close()
    }
  })
})
