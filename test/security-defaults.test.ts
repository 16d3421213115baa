// Safer defaults (issue 16, Hardening): the signing key in production, what a token must look like
// to be accepted, how the bearer scheme is read, response headers, /metrics and logs.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import pino from 'pino'
import {
  SignJWT,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
} from 'jose'
import { ConfigError, loadConfig } from '../src/config/config.ts'
import { call, onPostgres, registerProbeRoutes, startTestService, waitFor, type TestService } from './support/index.ts'
import * as clients from '../src/platform/auth/clients.service.ts'
import { errorSummary, redactUrl } from '../src/platform/observability/log-redaction.ts'

const addClient = (t: TestService, clientId: string) =>
  clients.addClient(t.service.database.db, { clientId, rto: '90009', scopes: ['vet:read'] })

/** A fresh P-256 key as PKCS#8 PEM, for AUTH_SIGNING_KEY. */
async function newSigningKey(): Promise<{ pem: string; privateKey: CryptoKey }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  return { pem: await exportPKCS8(privateKey), privateKey }
}

const run = promisify(execFile)

describe('the signing key: production requires one from the environment', () => {
  let directory: string
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'vetrs-key-'))
  })
  after(() => rm(directory, { recursive: true, force: true }))

  const configProblems = (env: Record<string, string>): string => {
    try {
      loadConfig(env)
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      return error.problems.join('\n')
    }
    assert.fail('configuration was accepted')
  }

  it('production without AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE is a configuration error', () => {
    assert.match(
      configProblems({ SERVICE_MODE: 'production' }),
      /SERVICE_MODE=production needs AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE/,
    )
  })

  it('npm start in production without a key exits with status 2 and names the setting, before opening a database', async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      SERVICE_MODE: 'production',
      DATA_DIR: 'memory://',
      DATABASE_URL: '',
      PORT: '0',
    }
    const outcome = await run(process.execPath, ['src/main.ts'], { env, timeout: 30_000 }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    )
    assert.equal(outcome.code, 2)
    // Start-up failures are one structured log line (docs/decisions.md, "Start-up failures").
    assert.match(`${outcome.stdout}${outcome.stderr}`, /AUTH_SIGNING_KEY/)
  })

  it('production: the worker, the admin CLI and the seed, which neither sign nor verify tokens, need no key; a key they are given is still checked', () => {
    assert.equal(loadConfig({ SERVICE_MODE: 'production' }, { signsTokens: false }).auth.signingKeyPem, undefined)
    assert.throws(
      () => loadConfig({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY: 'not a key' }, { signsTokens: false }),
      (error: unknown) => error instanceof ConfigError && /AUTH_SIGNING_KEY: not a PKCS#8 PEM/.test(error.message),
    )
  })

  it('development without a key is still valid configuration (the key is generated)', () => {
    assert.equal(loadConfig({}).auth.signingKeyPem, undefined)
  })

  it('AUTH_SIGNING_KEY_FILE reads the key from a file; a missing file, both settings, or a key that is not P-256 PKCS#8 are errors that never quote the key', async () => {
    const { pem } = await newSigningKey()
    const file = join(directory, 'signing-key.pem')
    await writeFile(file, pem)
    assert.equal(loadConfig({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY_FILE: file }).auth.signingKeyPem, pem)
    assert.match(
      configProblems({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY_FILE: join(directory, 'absent.pem') }),
      /AUTH_SIGNING_KEY_FILE: cannot read .*ENOENT/,
    )
    assert.match(configProblems({ AUTH_SIGNING_KEY: pem, AUTH_SIGNING_KEY_FILE: file }), /set one of them, not both/)
    const p384 = await exportPKCS8((await generateKeyPair('ES384', { extractable: true })).privateKey)
    const wrongCurve = configProblems({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY: p384 })
    assert.match(wrongCurve, /AUTH_SIGNING_KEY: not a PKCS#8 PEM of an EC P-256 private key/)
    assert.ok(!wrongCurve.includes(p384.split('\n')[1]!), 'the key is not quoted')
    assert.match(
      configProblems({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY: 'not a key' }),
      /AUTH_SIGNING_KEY: not a PKCS#8 PEM/,
    )
  })

  it('a production service signs with the key of AUTH_SIGNING_KEY_FILE and keeps no key in the database', async () => {
    const { pem, privateKey } = await newSigningKey()
    const file = join(directory, 'production-key.pem')
    await writeFile(file, pem)
    const t = await startTestService({ env: { SERVICE_MODE: 'production', AUTH_SIGNING_KEY_FILE: file } })
    try {
      const { secret } = await addClient(t, 'production-client')
      const token = await t.token('production-client', secret)
      const publicJwk = await exportJWK(privateKey).then(({ d: _private, ...rest }) => rest)
      const { payload } = await jwtVerify(token, await importJWK(publicJwk, 'ES256'))
      assert.equal(payload.client_id, 'production-client')
      const stored = await t.service.database.db.selectFrom('signing_key').select('kid').execute()
      assert.deepEqual(stored, [])
    } finally {
      await t.close()
    }
  })

  it('a development service without a key generates one and keeps it in the database', async () => {
    const t = await startTestService()
    try {
      const stored = await t.service.database.db.selectFrom('signing_key').select('kid').execute()
      assert.equal(stored.length, 1)
    } finally {
      await t.close()
    }
  })
})

describe('token verification accepts only tokens shaped like the ones the service issues', () => {
  let t: TestService
  let privateKey: CryptoKey
  before(async () => {
    const key = await newSigningKey()
    privateKey = key.privateKey
    t = await startTestService({
      env: { AUTH_SIGNING_KEY: key.pem, AUTH_TOKEN_TTL_SECONDS: '600' },
      extraRoutes: registerProbeRoutes,
    })
  })
  after(() => t.close())

  const now = () => Math.floor(Date.now() / 1000)
  /** Signs with the service's own key: everything right unless the test changes it. */
  const mint = (options: { typ?: string | null; iat?: number | null; exp?: number } = {}) => {
    const header: { alg: string; typ?: string } = { alg: 'ES256' }
    if (options.typ !== null) header.typ = options.typ ?? 'at+jwt'
    const claims: JWTPayload = { client_id: 'demo-rto-1', rto: '90001', scope: 'vet:read' }
    if (options.iat !== null) claims.iat = options.iat ?? now()
    return new SignJWT(claims)
      .setProtectedHeader(header)
      .setIssuer(t.service.config.auth.issuer)
      .setAudience(t.service.config.auth.audience)
      .setSubject('demo-rto-1')
      .setExpirationTime(options.exp ?? now() + 600)
      .sign(privateKey)
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
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
  })
  after(() => t.close())

  it('the Bearer scheme is case-insensitive (RFC 7235): bearer and BEARER are accepted', async () => {
    const token = await t.token()
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const response = await call(t.baseUrl, 'GET', '/probe/records', {
        headers: { authorization: `${scheme} ${token}` },
      })
      assert.equal(response.status, 200, scheme)
    }
    const other = await call(t.baseUrl, 'GET', '/probe/records', { headers: { authorization: `Bearers ${token}` } })
    assert.equal(other.status, 401, 'another scheme that merely starts with bearer')
  })
})

/** A pino logger writing JSON lines to memory, for assertions on what was logged. */
function capturingLogger() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return {
    logger: pino({ level: 'info' }, stream),
    text: () => lines.join(''),
    entries: () =>
      lines
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>),
  }
}

describe('logs never carry credentials sent in a query string, nor database client internals', () => {
  it('redactUrl replaces credential parameters, in any case and encoding, and leaves the rest as sent', () => {
    assert.equal(
      redactUrl('/a/b?pageSize=5&access_token=eyJ.x.y&pageNumber=2'),
      '/a/b?pageSize=5&access_token=[REDACTED]&pageNumber=2',
    )
    assert.equal(redactUrl('/t?Client_Secret=s3cr3t&client_id=demo'), '/t?Client_Secret=[REDACTED]&client_id=demo')
    assert.equal(redactUrl('/t?access%5Ftoken=abc'), '/t?access%5Ftoken=[REDACTED]')
    assert.equal(redactUrl('/t?token'), '/t?token=[REDACTED]')
    assert.equal(redactUrl('/plain/path'), '/plain/path')
  })

  it('a token sent as ?access_token= is refused (401) and the request log shows the URL without it', async () => {
    const capture = capturingLogger()
    const t = await startTestService({ extraRoutes: registerProbeRoutes, service: { logger: capture.logger } })
    try {
      const token = await t.token()
      const response = await call(t.baseUrl, 'GET', `/probe/records?pageSize=5&access_token=${token}`)
      assert.equal(response.status, 401)
      const secretInQuery = await call(t.baseUrl, 'POST', '/oauth2/token?client_secret=demo-secret-1', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-1',
          client_secret: 'demo-secret-1',
        }),
      })
      assert.equal(secretInQuery.status, 200)
      const urls = capture
        .entries()
        .filter((entry) => entry.msg === 'request completed')
        .map((entry) => entry.req.url as string)
      assert.ok(urls.includes('/probe/records?pageSize=5&access_token=[REDACTED]'), urls.join(', '))
      assert.ok(urls.includes('/oauth2/token?client_secret=[REDACTED]'), urls.join(', '))
      assert.ok(!capture.text().includes(token), 'the token appears nowhere in the log')
      assert.ok(!capture.text().includes('demo-secret-1'), 'the secret appears nowhere in the log')
    } finally {
      await t.close()
    }
  })

  it('a statement the database refuses is logged without the values it was given (parameters, the row in the detail)', async () => {
    const capture = capturingLogger()
    const t = await startTestService({ extraRoutes: registerProbeRoutes, service: { logger: capture.logger } })
    try {
      const familyName = 'Featherstonehaugh-Personal'
      const response = await call(t.baseUrl, 'POST', '/probe/database-refusal', {
        token: await t.token(),
        json: { familyName },
      })
      assert.equal(response.status, 500)
      const logged = capture.entries().find((entry) => entry.msg === 'unexpected error')
      assert.ok(logged, 'the refusal was logged as an unexpected error')
      assert.equal(logged.err.code, '23505', 'the log still says what went wrong (a unique violation)')
      assert.match(String(logged.err.message), /duplicate key/)
      assert.ok(!capture.text().includes(familyName), 'the value appears nowhere in the log')
    } finally {
      await t.close()
    }
  })

  it('errorSummary keeps only name, message and code of an error that carries a database client', () => {
    const error = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client: { user: 'postgres', host: 'db', secretKey: 12345 },
    })
    assert.deepEqual(errorSummary(error), {
      name: 'Error',
      message: 'terminating connection due to administrator command',
      code: '57P01',
    })
  })

  it('PostgreSQL: a queue error from a terminated connection is logged without the pg client (user, host, secret key)', {
    skip: onPostgres ? false : 'pg-boss connections exist only on PostgreSQL',
  }, async () => {
    const capture = capturingLogger()
    const t = await startTestService({ service: { logger: capture.logger, workers: true } })
    try {
      // A terminated connection reads as an outage of the database (logged once, issue 30), or as a
      // plain queue error: either way structured under `error`.
      const queueErrors = () =>
        capture.entries().filter((entry) => /^queue (error|cannot reach the database)/.test(entry.msg))
      const first = await waitFor(
        'terminating pg-boss connections produced a queue error',
        async () => {
          // The pool our query runs on may hand it a connection the previous round terminated (57P01):
          // that round's query is lost, not the test; try again at the next interval.
          try {
            await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pgboss' AND pid <> pg_backend_pid()`.execute(
              t.service.database.db,
            )
          } catch (error) {
            if ((error as { code?: string }).code !== '57P01') throw error
          }
          return queueErrors()[0]
        },
        // Terminating every 100 ms (tried) lets a pg error escape while pg-boss reconnects; 500 ms as before.
        { timeoutMs: 20_000, intervalMs: 500 },
      )
      assert.deepEqual(
        Object.keys(first.error).filter((key) => !['name', 'message', 'code'].includes(key)),
        [],
      )
      assert.equal(typeof first.error.message, 'string')
      for (const line of queueErrors())
        assert.doesNotMatch(JSON.stringify(line), /secretKey|processID|"user"|connectionParameters|"client"/)
    } finally {
      await t.close()
    }
  })
})

describe('security headers', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({
      extraRoutes: (app, db) => {
        registerProbeRoutes(app, db)
        app.get('/probe/cacheable', { config: { public: true } }, async (_request, reply) =>
          reply.header('Cache-Control', 'public, max-age=60').send({ cacheable: true }),
        )
      },
    })
  })
  after(() => t.close())

  it('every response carries X-Content-Type-Options: nosniff and X-Frame-Options: DENY, errors and documentation included', async () => {
    const token = await t.token()
    const responses = [
      await call(t.baseUrl, 'GET', '/health/live'),
      await call(t.baseUrl, 'GET', '/probe/records', { token }),
      await call(t.baseUrl, 'GET', '/probe/records'), // 401
      await call(t.baseUrl, 'GET', '/no/such/route'), // 404
      await call(t.baseUrl, 'GET', '/openapi.json'),
      await call(t.baseUrl, 'GET', '/docs'),
      await call(t.baseUrl, 'POST', '/oauth2/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-1',
          client_secret: 'demo-secret-1',
        }),
      }),
    ]
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 401, 404, 200, 200, 200],
    )
    for (const response of responses) {
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(response.headers.get('x-frame-options'), 'DENY')
    }
  })

  it('API responses carry Cache-Control: no-store (personal data, tokens, refusals); a route that sets caching itself keeps it', async () => {
    const token = await t.token()
    for (const response of [
      await call(t.baseUrl, 'GET', '/probe/records', { token }),
      await call(t.baseUrl, 'GET', '/probe/records'),
      await call(t.baseUrl, 'GET', '/health/ready'),
    ]) {
      assert.equal(response.headers.get('cache-control'), 'no-store')
    }
    assert.equal((await call(t.baseUrl, 'GET', '/probe/cacheable')).headers.get('cache-control'), 'public, max-age=60')
  })

  it('API responses forbid loading or framing anything (CSP default-src none, frame-ancestors none)', async () => {
    const csp = (await call(t.baseUrl, 'GET', '/health/live')).headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /frame-ancestors 'none'/)
  })

  it('/docs has its own CSP that forbids framing and inline scripts, and everything the page loads is served from the service under it', async () => {
    const page = await call(t.baseUrl, 'GET', '/docs')
    assert.equal(page.status, 200)
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /frame-ancestors 'none'/)
    assert.match(csp, /script-src 'self';/, 'scripts only from the service, no inline script')
    assert.doesNotMatch(csp, /upgrade-insecure-requests/, 'plain-http development keeps working')
    // The page works under that policy only if it has no inline script and loads only its own assets.
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    assert.ok(scripts.length >= 3)
    for (const [, attributes, body] of scripts) {
      assert.match(attributes!, /src="/, 'no inline script')
      assert.equal(body!.trim(), '')
    }
    assert.doesNotMatch(page.text, /\son\w+=/, 'no inline event handler')
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!)
    for (const asset of assets) {
      assert.ok(asset.startsWith('/docs/static/'), `served by the service: ${asset}`)
      const response = await fetch(`${t.baseUrl}${asset}`)
      await response.arrayBuffer()
      assert.equal(response.status, 200, asset)
    }
    const initializer = await fetch(`${t.baseUrl}/docs/static/swagger-initializer.js`)
    assert.match(
      await initializer.text(),
      /resolveUrl\('\.\/json'\)/,
      'the page reads the description from /docs/json, same origin',
    )
    const description = await call(t.baseUrl, 'GET', '/docs/json')
    assert.equal(description.json.openapi, '3.1.0')
  })

  it('a request that is not valid HTTP is answered with nosniff and no-store too', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1', () =>
        socket.write('NOT HTTP AT ALL\r\n\r\n'),
      )
      let received = ''
      socket.on('data', (chunk) => {
        received += String(chunk)
      })
      socket.on('end', () => resolve(received))
      socket.on('error', reject)
    })
    assert.match(answer, /^HTTP\/1\.1 400/)
    assert.match(answer, /X-Content-Type-Options: nosniff\r\n/i)
    assert.match(answer, /Cache-Control: no-store\r\n/i)
  })
})

describe('/metrics requires METRICS_TOKEN in production', () => {
  const metricsToken = `${'m'.repeat(16)}A1b2C3d4E5f6G7h8`
  let production: TestService
  let productionWithoutToken: TestService
  before(async () => {
    production = await startTestService({
      env: { SERVICE_MODE: 'production', AUTH_SIGNING_KEY: (await newSigningKey()).pem, METRICS_TOKEN: metricsToken },
    })
    productionWithoutToken = await startTestService({
      env: { SERVICE_MODE: 'production', AUTH_SIGNING_KEY: (await newSigningKey()).pem },
    })
  })
  after(async () => {
    await production.close()
    await productionWithoutToken.close()
  })

  const metrics = (t: TestService, authorization?: string) =>
    call(t.baseUrl, 'GET', '/metrics', authorization ? { headers: { authorization } } : {})

  it('production: without the token, with a wrong one, or with an OAuth access token, /metrics is 401', async () => {
    const { secret } = await addClient(production, 'metrics-reader')
    const accessToken = await production.token('metrics-reader', secret)
    for (const authorization of [
      undefined,
      `Bearer ${metricsToken}x`,
      `Bearer ${accessToken}`,
      `Basic ${Buffer.from(`x:${metricsToken}`).toString('base64')}`,
    ]) {
      const response = await metrics(production, authorization)
      assert.equal(response.status, 401, authorization)
      assert.equal(response.headers.get('www-authenticate'), 'Bearer')
      assert.doesNotMatch(response.text, /vetrs_/)
    }
  })

  it('production: Bearer METRICS_TOKEN (scheme in any case) gets the Prometheus text', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const response = await metrics(production, `${scheme} ${metricsToken}`)
      assert.equal(response.status, 200)
      assert.match(response.text, /vetrs_http_requests_total/)
    }
  })

  it('production without METRICS_TOKEN: /metrics refuses every request', async () => {
    assert.equal((await metrics(productionWithoutToken)).status, 401)
    assert.equal((await metrics(productionWithoutToken, `Bearer ${metricsToken}`)).status, 401)
  })

  it('development: /metrics needs a token only once METRICS_TOKEN is set (open otherwise, as operations.test.ts scrapes it)', () => {
    assert.deepEqual(loadConfig({}).metrics, { token: undefined, required: false })
    assert.deepEqual(loadConfig({ METRICS_TOKEN: metricsToken }).metrics, { token: metricsToken, required: true })
  })

  it('METRICS_TOKEN shorter than 32 characters, or with characters a bearer token cannot carry, is a configuration error', () => {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'short' }),
      (error: unknown) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message),
    )
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: `${metricsToken} with spaces` }),
      (error: unknown) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message),
    )
  })
})
