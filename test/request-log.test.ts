// What the service writes (issue 30, Logs): every line on stdout and stderr is JSON, the built-in
// identity provider's development notice included (or absent); one line per request at info, with
// method, URL, status and time; health checks and metrics scrapes at debug.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createTestDatabase, freePort, waitFor, type TestDatabase } from './support/index.ts'

interface Started {
  baseUrl: string
  /** Every line written so far, stdout and stderr. */
  lines: string[]
  stop(): Promise<void>
}

/** `node src/main.ts` in development mode (the console and its built-in identity provider on), output kept. */
async function startService(database: TestDatabase, logLevel: string): Promise<Started> {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts'], {
    env: {
      ...process.env,
      ...database.env,
      SERVICE_MODE: 'development',
      LOG_LEVEL: logLevel,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_MAX: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let pending = ''
  const keep = (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const complete = pending.split('\n')
    pending = complete.pop() ?? ''
    lines.push(...complete.filter((line) => line !== ''))
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitFor(
      'the service is ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${lines.join('\n')}`)
        return lines.some((line) => line.includes('service ready')) ? true : undefined
      },
      // A bound, not a timing (as startChildService's): at full CI load on a slow machine a PGlite
      // service took more than 60 s to start (twelfth session's CI run).
      { timeoutMs: 90_000, intervalMs: 100 },
    )
  } catch (error) {
    // Not left running: the test process is ended once its tests are over, and a service it started
    // would run on orphaned (one did, after that CI run's failed start).
    child.kill('SIGKILL')
    throw error
  }
  return {
    baseUrl,
    lines,
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      if (pending) lines.push(pending)
    },
  }
}

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, any>)

describe('the log: JSON lines only, one per request', () => {
  let database: TestDatabase
  let info: Started
  let debug: Started
  before(async () => {
    database = await createTestDatabase()
    info = await startService(database, 'info')
  })
  after(async () => {
    await info?.stop()
    await debug?.stop()
    await database?.drop()
  })

  it('every line written from start to stop is JSON, the identity provider included', async () => {
    // Signing in to the console begins at its built-in identity provider, which starts its storage then.
    const signIn = await fetch(`${info.baseUrl}/console/sign-in`, { redirect: 'manual' })
    const authorisation = signIn.headers.get('location')
    assert.ok(authorisation, `sign-in redirects to the provider (${signIn.status})`)
    const cookie = signIn.headers
      .getSetCookie()
      .map((set) => set.split(';')[0])
      .join('; ')
    const atProvider = await fetch(new URL(authorisation, info.baseUrl), { redirect: 'manual', headers: { cookie } })
    assert.ok(atProvider.status < 500, `the provider answers (${atProvider.status})`)
    await info.stop()
    const notJson = info.lines.filter((line) => {
      try {
        JSON.parse(line)
        return false
      } catch {
        return true
      }
    })
    assert.deepEqual(notJson, [])
    assert.ok(!info.lines.some((line) => line.includes('oidc-provider')), 'no notice of the identity provider')
  })

  it('one line per request at info, naming method, URL, status and time; health checks are not at info', async () => {
    debug = await startService(database, 'debug')
    const requestId = `log-test-${Date.now()}`
    const response = await fetch(`${debug.baseUrl}/openapi.json`, { headers: { 'x-request-id': requestId } })
    assert.equal(response.status, 200)
    await response.arrayBuffer()
    const healthId = `health-${Date.now()}`
    await (await fetch(`${debug.baseUrl}/health/live`, { headers: { 'x-request-id': healthId } })).arrayBuffer()
    await waitFor('both requests are logged', async () =>
      parsed(debug.lines).some((line) => line.reqId === healthId) ? true : undefined,
    )
    const ofRequest = parsed(debug.lines).filter((line) => line.reqId === requestId)
    assert.equal(ofRequest.length, 1, JSON.stringify(ofRequest))
    const [line] = ofRequest as [Record<string, any>]
    assert.equal(line.level, 30)
    assert.equal(line.msg, 'request completed')
    assert.equal(line.req.method, 'GET')
    assert.equal(line.req.url, '/openapi.json')
    assert.equal(line.res.statusCode, 200)
    assert.equal(typeof line.responseTime, 'number')

    const ofHealth = parsed(debug.lines).filter((line) => line.reqId === healthId)
    assert.deepEqual(
      ofHealth.map((entry) => [entry.level, entry.msg]),
      [[20, 'request completed']],
    )
  })
})
