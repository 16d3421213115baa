// vetrs webhooks (issue 33) as a developer uses it: real CLI processes against a real service. add,
// list, deliveries, redeliver, rotate-secret, remove, and listen: a local receiver that registers an
// endpoint for its session, prints each verified delivery, and removes the endpoint when it stops.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { newRto, sdkFor, startTestService, type TestService } from '../../client/test/support/service.ts'
import { freePort, waitFor } from '../../../test/support/index.ts'

const run = promisify(execFile)
const BIN = new URL('../bin/vetrs.js', import.meta.url).pathname

describe('vetrs webhooks', () => {
  let t: TestService
  let scratch: string
  before(async () => {
    t = await startTestService()
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-webhooks-'))
  })
  after(async () => {
    await t.close()
    await rm(scratch, { recursive: true, force: true })
  })

  async function user() {
    const rto = await newRto(t)
    const env = {
      ...process.env,
      VETRS_CONFIG: join(scratch, `${rto.clientId}.json`),
      VETRS_URL: '',
      VETRS_CLIENT_ID: '',
      VETRS_CLIENT_SECRET: '',
    }
    const vetrs = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, timeout: 60_000 })
        return { code: 0, stdout, stderr }
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string }
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
      }
    }
    const login = await vetrs(
      'login',
      '--url',
      t.baseUrl,
      '--client-id',
      rto.clientId,
      '--client-secret',
      rto.clientSecret,
    )
    assert.equal(login.code, 0, login.stderr)
    return { rto, env, vetrs }
  }

  it('add, list, deliveries, redeliver, rotate-secret, remove', async () => {
    const { rto, vetrs } = await user()
    const port = await freePort()
    const added = await vetrs(
      '--json',
      'webhooks',
      'add',
      `http://127.0.0.1:${port}/`,
      '--type',
      'batch.created',
      '--description',
      'dev',
    )
    assert.equal(added.code, 0, added.stderr)
    const endpoint = JSON.parse(added.stdout)
    assert.match(endpoint.secret, /^whsec_/)
    assert.deepEqual(endpoint.eventTypes, ['au.gov.vetrs.batch.created'])
    const listed = await vetrs('webhooks', 'list')
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, new RegExp(`${endpoint.endpointId}\\s+http://127\\.0\\.0\\.1:${port}/\\s+true`))
    assert.ok(!listed.stdout.includes(endpoint.secret))

    // Nothing listens on the port: the attempt fails and is logged.
    await sdkFor(t.baseUrl, rto).createBatch('NSW')
    const logged = await waitFor('an attempt in the log', async () => {
      const deliveries = await vetrs('--json', 'webhooks', 'deliveries', endpoint.endpointId)
      const attempts = JSON.parse(deliveries.stdout)
      return attempts.length > 0 ? attempts : undefined
    })
    assert.equal(logged[0].succeeded, false)
    assert.match(logged[0].error, /ECONNREFUSED/)
    const human = await vetrs('webhooks', 'deliveries', endpoint.endpointId)
    assert.match(human.stdout, /au\.gov\.vetrs\.batch\.created/)
    const redeliver = await vetrs('webhooks', 'redeliver', endpoint.endpointId, logged[0].deliveryId)
    assert.equal(redeliver.code, 0, redeliver.stderr)
    assert.match(redeliver.stdout, /will be sent again/)

    const rotated = await vetrs('webhooks', 'rotate-secret', endpoint.endpointId)
    assert.equal(rotated.code, 0, rotated.stderr)
    assert.match(rotated.stdout, /New signing secret \(shown this once, keep it\): whsec_/)
    const removed = await vetrs('webhooks', 'remove', endpoint.endpointId)
    assert.equal(removed.code, 0, removed.stderr)
    const gone = await vetrs('webhooks', 'remove', endpoint.endpointId)
    assert.equal(gone.code, 1, 'a 404 is a service error')
    assert.match((await vetrs('webhooks', 'list')).stdout, /No webhook endpoints/)
    const refused = await vetrs('webhooks', 'add', 'not-a-url')
    assert.equal(refused.code, 1)
  })

  it('listen registers an endpoint for the session, prints each verified delivery, and removes the endpoint when done', async () => {
    const { rto, env } = await user()
    const port = await freePort()
    const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', String(port), '--count', '2'], { env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    try {
      await waitFor(
        () => `listening (stderr: ${stderr})`,
        () => (stderr.includes('Listening on') ? true : undefined),
      )
      const sdk = sdkFor(t.baseUrl, rto)
      assert.equal((await sdk.webhookEndpoints()).length, 1, 'an endpoint for the session')
      const batch = await sdk.createBatch('NSW')
      await sdk.discardBatch('NSW', batch.transactionBatchToken)
      assert.equal(await exited, 0, stderr)
      const lines = stdout.trim().split('\n')
      assert.equal(lines.length, 2, stdout)
      assert.match(
        lines[0]!,
        new RegExp(`au\\.gov\\.vetrs\\.batch\\.created\\s+NSW/transaction-batch/${batch.transactionBatchToken}`),
      )
      assert.match(lines[1]!, /au\.gov\.vetrs\.batch\.discarded/)
      assert.match(stderr, /Removed webhook endpoint/)
      assert.deepEqual(await sdk.webhookEndpoints(), [], 'removed when it stopped')
    } finally {
      child.kill()
    }
  })
})
