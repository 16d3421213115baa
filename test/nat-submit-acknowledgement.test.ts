// Nothing submitted by mistake (issue 31 item 7, the API's part): a batch made by the service's NAT
// import (POST .../nat-import) that left NAT problems out (lines it could not read or map, records
// refused) is submitted only when the request acknowledges their number (?acknowledgeDropped=<n>, the
// SDK's submitBatch option); otherwise 409 nat-lines-dropped with the count. Other batches are unaffected.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources.
import { generateNatFileSet, natToResources, natZipBytes, readNatEntries } from '../packages/avetmiss/src/index.ts'
import { codeTranslatorFrom } from '../packages/avetmiss/src/index.ts'
import { ConflictReason, ServiceError, Vetrs, type ResourceRecord } from '../packages/client/src/index.ts'
import { newRto, type TestRto } from '../packages/client/test/support/service.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'
import { call, startTestService, V1, type TestService } from './support/index.ts'

/** A fixed seed and a day in the past of every run, so the service's date rules pass. */
const GENERATED = { activities: 20, year: 2026, asOf: '2026-06-30' } as const

describe('submitting a batch whose NAT import left lines out (409 nat-lines-dropped, acknowledgeDropped)', () => {
  let t: TestService
  let referenceData: Awaited<ReturnType<typeof readSeedReferenceData>>
  let rto: TestRto
  let token: string
  let sdk: Vetrs

  const generate = (seed: string, faults: { kind: 'unknown-code'; count: number }[] = []) =>
    generateNatFileSet({ ...GENERATED, seed, rtoCode: rto.rto, referenceData, faults })
  const batchPath = (batch: string, rest = '') => `${V1}/VIC/transaction-batch/${batch}${rest}`
  const submit = (batch: string, query = '') => call(t.baseUrl, 'POST', batchPath(batch, `/submit${query}`), { token })
  /** A NAT import of the set, validated with no blocking failure: ready to submit but for what it dropped. */
  const importedAndValidated = async (entries: Parameters<typeof natZipBytes>[0]) => {
    const imported = await sdk.natImport('VIC', natZipBytes(entries))
    const validated = await sdk.validate('VIC', imported.transactionBatchToken)
    assert.equal(validated.blocking.length, 0, JSON.stringify(validated.blocking))
    return imported
  }

  before(async () => {
    t = await startTestService()
    referenceData = await readSeedReferenceData()
    rto = await newRto(t, String(randomInt(10_000, 100_000)))
    token = await t.token(rto.clientId, rto.clientSecret)
    sdk = new Vetrs({ baseUrl: t.baseUrl, credentials: { clientId: rto.clientId, clientSecret: rto.clientSecret } })
  })
  after(() => t.close())

  it('refused without the acknowledgement and with a wrong count, naming the count; submitted with the right count', async () => {
    const imported = await importedAndValidated(generate('ack-dropped', [{ kind: 'unknown-code', count: 2 }]).entries)
    assert.equal(imported.natProblemCount, 2)
    const batch = imported.transactionBatchToken

    const plain = await submit(batch)
    assert.equal(plain.status, 409, plain.text)
    assert.equal(plain.json.type, '/problems/conflict')
    assert.equal(plain.json.reason, 'nat-lines-dropped')
    assert.equal(plain.json.droppedCount, 2)
    assert.match(plain.json.detail, new RegExp(`NAT import that made batch ${batch} left out 2 NAT problems`))
    assert.match(plain.json.detail, /acknowledgeDropped=2/)
    assert.match(plain.json.detail, /vetrs submit --acknowledge-dropped 2/)

    const wrong = await submit(batch, '?acknowledgeDropped=1')
    assert.equal(wrong.status, 409, wrong.text)
    assert.equal(wrong.json.reason, 'nat-lines-dropped')
    assert.match(wrong.json.detail, /^acknowledgeDropped=1 is not the count\./)
    // The deprecated twin without the jurisdiction segment checks the same.
    const twin = await call(t.baseUrl, 'POST', `${V1}/transaction-batch/${batch}/submit`, { token })
    assert.equal(twin.status, 409, twin.text)
    assert.equal(twin.json.reason, 'nat-lines-dropped')
    // Not a count: the request's format, 400, nothing submitted.
    const malformed = await submit(batch, '?acknowledgeDropped=all')
    assert.equal(malformed.status, 400, malformed.text)
    assert.equal((await sdk.batch('VIC', batch)).status, 'NotSubmitted', 'nothing submitted')

    // The SDK: the refusal as a ServiceError with its reason, then the acknowledgement as an option.
    await assert.rejects(sdk.submitBatch('VIC', batch), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.equal(error.reason, ConflictReason.NatLinesDropped)
      assert.equal(error.problem?.droppedCount, 2)
      return true
    })
    const submitted = await sdk.submitBatch('VIC', batch, { acknowledgeDropped: 2 })
    assert.equal(submitted.status, 'Submitted')
    assert.equal(submitted.numberOfRecordsSubmitted, imported.recordCount)
  })

  it('a NAT import that left nothing out, and a batch no NAT import made, are submitted as before', async () => {
    const clean = await importedAndValidated(generate('ack-clean').entries)
    assert.equal(clean.natProblemCount, 0)
    const submitted = await submit(clean.transactionBatchToken)
    assert.equal(submitted.status, 200, submitted.text)
    assert.equal(submitted.json.status, 'Submitted')

    // Records uploaded through the API (another RTO, so the first one's held history plays no part):
    // the SDK's workflow submits without acknowledging.
    const other = await newRto(t, String(randomInt(10_000, 100_000)))
    const otherSdk = new Vetrs({
      baseUrl: t.baseUrl,
      credentials: { clientId: other.clientId, clientSecret: other.clientSecret },
    })
    const codes = codeTranslatorFrom(referenceData)
    const entries = generateNatFileSet({ ...GENERATED, seed: 'ack-api', rtoCode: other.rto, referenceData }).entries
    const records = natToResources(readNatEntries(entries), { rtoCode: other.rto, codes }).records
    const outcome = await otherSdk.submit(
      records.map((r) => r.record as unknown as ResourceRecord),
      { jurisdiction: 'VIC', dryRun: true },
    )
    assert.equal(outcome.blocking.length, 0, JSON.stringify(outcome.blocking).slice(0, 1500))
    // An acknowledgement where nothing was dropped is not a condition: ignored.
    const api = await call(
      t.baseUrl,
      'POST',
      batchPath(outcome.transactionBatchToken, '/submit?acknowledgeDropped=3'),
      {
        token: await t.token(other.clientId, other.clientSecret),
      },
    )
    assert.equal(api.status, 200, api.text)
    assert.equal(api.json.status, 'Submitted')
  })
})
