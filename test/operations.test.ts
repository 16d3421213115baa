// Operability: OpenAPI, health, metrics, configuration, production safety and the admin CLI.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { exportPKCS8, generateKeyPair } from 'jose'
import { Validator } from '@seriousme/openapi-schema-validator'
import { ConfigError, loadConfig } from '../src/config/config.ts'
import { call, createTestDatabase, registerProbeRoutes, startTestService, type TestService } from './support/index.ts'

const run = promisify(execFile)

describe('OpenAPI, health and metrics', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ extraRoutes: registerProbeRoutes })
  })
  after(() => t.close())

  it('serves a valid OpenAPI 3.1 description at /openapi.json', async () => {
    const response = await call(t.baseUrl, 'GET', '/openapi.json')
    assert.equal(response.status, 200)
    assert.equal(response.json.openapi, '3.1.0')
    const result = await new Validator().validate(response.json)
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000))
  })

  it('every operation declares its problem responses; protected ones their scope, 401 and 403', async () => {
    const spec = (await call(t.baseUrl, 'GET', '/openapi.json')).json
    const operations = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    )
    assert.ok(operations.length >= 6)
    for (const { path, method, operation } of operations) {
      assert.ok(operation.responses['500'], `${method} ${path} declares 500`)
    }
    const upload = spec.paths['/probe/records'].post
    assert.deepEqual(upload.security, [{ oauth2: ['vet:report'] }])
    for (const status of ['400', '401', '403', '413', '415', '429'])
      assert.ok(upload.responses[status], `upload declares ${status}`)
    assert.ok(spec.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl)
    const token = spec.paths['/oauth2/token'].post
    assert.equal(token.security, undefined, 'the token endpoint needs no bearer token')
    assert.ok(token.responses['400'] && token.responses['429'])
  })

  it('Errors: every 4xx and 5xx response is described as application/problem+json, as it is sent', async () => {
    const spec = (await call(t.baseUrl, 'GET', '/openapi.json')).json
    let problems = 0
    for (const [path, methods] of Object.entries(spec.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, declared] of Object.entries(operation.responses as Record<string, any>)) {
          const response = declared.$ref
            ? spec.components.responses[declared.$ref.replace('#/components/responses/', '')]
            : declared
          assert.ok(response, `${method} ${path} ${status}: ${declared.$ref} resolves`)
          if (!/^[45]/.test(status) || !response.content) continue
          assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${method} ${path} ${status}`)
          problems++
        }
      }
    }
    assert.ok(problems > 100, `problem responses described: ${problems}`)
    const sent = await call(t.baseUrl, 'GET', '/vet-provider/v1/NSW/transaction-batch')
    assert.equal(sent.status, 401)
    assert.match(sent.headers.get('content-type') ?? '', /^application\/problem\+json/)
  })

  it('serves interactive documentation at /docs', async () => {
    const response = await fetch(`${t.baseUrl}/docs/`)
    assert.equal(response.status, 200)
    assert.match(await response.text(), /swagger/i)
  })

  it("GET / (what a browser asks first) redirects to the console's landing page, which answers", async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await fetch(`${t.baseUrl}/`, { method, redirect: 'manual' })
      assert.equal(response.status, 302, method)
      assert.equal(response.headers.get('location'), '/console/', method)
    }
    const followed = await fetch(`${t.baseUrl}/`)
    assert.equal(followed.status, 200)
    assert.match(followed.headers.get('content-type') ?? '', /^text\/html/)
  })

  it('liveness and readiness report the database and the queue', async () => {
    assert.deepEqual((await call(t.baseUrl, 'GET', '/health/live')).json, { status: 'ok' })
    const ready = await call(t.baseUrl, 'GET', '/health/ready')
    assert.equal(ready.status, 200)
    assert.deepEqual(ready.json, { status: 'ok', checks: { database: 'ok', queue: 'ok' } })
  })

  it('exposes Prometheus metrics: requests by route and status, latency, queue depth', async () => {
    await call(t.baseUrl, 'GET', '/health/live')
    const text = (await call(t.baseUrl, 'GET', '/metrics')).text
    assert.match(text, /vetrs_http_requests_total\{route="\/health\/live",method="GET",status="200"\} \d+/)
    assert.match(text, /vetrs_http_request_duration_seconds_bucket/)
    assert.match(text, /vetrs_queue_depth\{job="housekeeping"\} \d+/)
  })

  it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
    const echoed = await call(t.baseUrl, 'GET', '/health/live', { headers: { 'x-request-id': 'sms-trace-42' } })
    assert.equal(echoed.headers.get('x-request-id'), 'sms-trace-42')
    const replaced = await call(t.baseUrl, 'GET', '/health/live', { headers: { 'x-request-id': 'bad id with spaces' } })
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  })
})

describe('configuration', () => {
  it('an invalid configuration stops start-up listing every problem', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: 'eighty',
          LOG_LEVEL: 'loud',
          RATE_LIMIT_MAX: '-1',
          DATABASE_URL: 'mysql://x',
          AUTH_EXTERNAL_ISSUER: 'https://idp',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        const text = error.problems.join('\n')
        for (const name of ['PORT', 'LOG_LEVEL', 'RATE_LIMIT_MAX', 'DATABASE_URL', 'AUTH_EXTERNAL_ISSUER'])
          assert.match(text, new RegExp(name))
        return true
      },
    )
  })

  it('defaults: port 8080, embedded database in ./data, development mode', () => {
    const config = loadConfig({})
    assert.equal(config.http.port, 8080)
    assert.deepEqual(config.database, { kind: 'pglite', dataDir: './data' })
    assert.equal(config.mode, 'development')
    assert.equal(config.limits.wireBodyBytes, 1024 * 1024)
    assert.equal(config.limits.decodedBodyBytes, 10 * 1024 * 1024)
  })
})

describe('production safety and the admin CLI', () => {
  let dataDir: string
  let database: Awaited<ReturnType<typeof createTestDatabase>>
  let production: Record<string, string> // production needs a configured signing key
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vetrs-ops-'))
    database = await createTestDatabase(dataDir)
    production = {
      SERVICE_MODE: 'production',
      AUTH_SIGNING_KEY: await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey),
    }
  })
  after(async () => {
    await database.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('production mode creates no demo clients', async () => {
    const t = await startTestService({ database, env: production })
    try {
      const response = await call(t.baseUrl, 'POST', '/oauth2/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'demo-rto-1',
          client_secret: 'demo-secret-1',
        }),
      })
      assert.equal(response.status, 401)
    } finally {
      await t.close()
    }
  })

  it('production without a console: GET / redirects to the interactive documentation, which answers', async () => {
    const t = await startTestService({ database, env: production })
    try {
      const response = await fetch(`${t.baseUrl}/`, { redirect: 'manual' })
      assert.equal(response.status, 302)
      assert.equal(response.headers.get('location'), '/docs/')
      const followed = await fetch(`${t.baseUrl}/`)
      assert.equal(followed.status, 200)
      assert.match(await followed.text(), /swagger/i)
    } finally {
      await t.close()
    }
  })

  it('clients add prints a secret once that then obtains a token; list never shows secrets (the CLI in production needs no signing key)', async () => {
    const { AUTH_SIGNING_KEY: _key, AUTH_SIGNING_KEY_FILE: _keyFile, ...inherited } = process.env
    const env = { ...inherited, ...database.env, SERVICE_MODE: 'production', LOG_LEVEL: 'silent' }
    const added = await run(
      process.execPath,
      ['src/cli/main.ts', 'clients', 'add', 'sms-vendor-a', '--rto', '91234', '--scopes', 'vet:report,vet:read'],
      { env },
    )
    const secret = /client_secret: (\S+)/.exec(added.stdout)?.[1]
    assert.ok(secret)
    const listed = await run(process.execPath, ['src/cli/main.ts', 'clients', 'list'], { env })
    assert.match(listed.stdout, /sms-vendor-a/)
    assert.ok(!listed.stdout.includes(secret))
    const t = await startTestService({ database, env: production })
    try {
      const token = await t.token('sms-vendor-a', secret)
      assert.ok(token)
    } finally {
      await t.close()
    }
  })

  it('production mode refuses to start while demo clients exist', async () => {
    const development = await startTestService({ database })
    await development.close()
    await assert.rejects(startTestService({ database, env: production }), /Demo clients exist/)
  })
})
