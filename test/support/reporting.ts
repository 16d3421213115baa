// What an SMS does, as test steps: create a batch, upload records, validate and wait for the result,
// read every failed result, submit. Every step is a real HTTP request to the service under test.
import assert from 'node:assert/strict'
import { call } from './test-service.ts'
import { waitFor } from './wait.ts'
import { MINIMAL_UNIT_RECORD, loadExample, segmentOfExample } from './examples.ts'

export const V1 = '/vet-provider/v1'

/** A record to upload: its path segment and body. */
export interface Upload {
  segment: string
  body: Record<string, unknown>
}

export interface ValidationOutcome {
  status: Record<string, any>
  results: Record<string, any>[]
}

/** The minimal unit record (examples/minimal-unit-record) as uploads, in an order that needs no other. */
export async function minimalUnitRecord(): Promise<Upload[]> {
  return Promise.all(
    MINIMAL_UNIT_RECORD.map(async (file) => ({ segment: segmentOfExample(file), body: await loadExample(file) })),
  )
}

export class Reporter {
  readonly baseUrl: string
  readonly token: string
  readonly jurisdiction: string
  constructor(baseUrl: string, token: string, jurisdiction = 'NSW') {
    this.baseUrl = baseUrl
    this.token = token
    this.jurisdiction = jurisdiction
  }

  batchPath(batch: string, rest = ''): string {
    return `${V1}/${this.jurisdiction}/transaction-batch/${batch}${rest}`
  }

  request(method: string, path: string, json?: unknown) {
    return call(this.baseUrl, method, path, { token: this.token, ...(json === undefined ? {} : { json }) })
  }

  async newBatch(): Promise<string> {
    const created = await this.request('POST', `${V1}/${this.jurisdiction}/transaction-batch`)
    assert.equal(created.status, 201, created.text)
    return created.json.transactionBatchToken
  }

  async upload(batch: string, uploads: Upload[]): Promise<void> {
    for (const { segment, body } of uploads) {
      const response = await this.request('POST', this.batchPath(batch, `/${segment}`), body)
      assert.ok(response.status === 201 || response.status === 200, `${segment}: ${response.status} ${response.text}`)
    }
  }

  async batchWith(uploads: Upload[]): Promise<string> {
    const batch = await this.newBatch()
    await this.upload(batch, uploads)
    return batch
  }

  /** Polls GET validate until Validated (at most timeoutMs). */
  async waitForValidated(batch: string, timeoutMs = 60_000): Promise<Record<string, any>> {
    let last: string | undefined
    return waitFor(
      () => `validation still ${last}`,
      async () => {
        const status = await this.request('GET', this.batchPath(batch, '/validate'))
        assert.equal(status.status, 200, status.text)
        last = status.json.validationStatus
        return last === 'Validated' ? (status.json as Record<string, any>) : undefined
      },
      { timeoutMs },
    )
  }

  /** Every failed result of the latest completed run, all pages. */
  async allResults(batch: string): Promise<Record<string, any>[]> {
    const results: Record<string, any>[] = []
    for (let page = 1; ; page++) {
      const response = await this.request(
        'GET',
        this.batchPath(batch, `/failed-validation-results?pageSize=500&pageNumber=${page}`),
      )
      assert.equal(response.status, 200, response.text)
      results.push(...response.json.results)
      if (page >= response.json.numberOfPages) return results
    }
  }

  async validate(batch: string): Promise<ValidationOutcome> {
    const requested = await this.request('POST', this.batchPath(batch, '/validate'))
    assert.equal(requested.status, 201, requested.text)
    const status = await this.waitForValidated(batch)
    return { status, results: await this.allResults(batch) }
  }

  async submit(batch: string) {
    return this.request('POST', this.batchPath(batch, '/submit'))
  }

  /** Uploads, validates (asserting no blocking result) and submits; returns once reconciliation reflects it. */
  async submitted(uploads: Upload[]): Promise<string> {
    const batch = await this.batchWith(uploads)
    const { results } = await this.validate(batch)
    assert.deepEqual(
      results.filter((r) => r.validationMessageLevel === 'Error'),
      [],
      'no blocking result expected',
    )
    const submitted = await this.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    await this.waitForReconciled(batch)
    return batch
  }

  /** Polls the batch until reconciliation reflects its submission (reconciledAt set). */
  async waitForReconciled(batch: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      `batch ${batch} not reconciled`,
      async () => ((await this.request('GET', this.batchPath(batch))).json.reconciledAt ? true : undefined),
      { timeoutMs },
    )
  }

  async heldState(segment: string, uid: string) {
    const response = await this.request('GET', `${V1}/${segment}/${uid}`)
    assert.equal(response.status, 200, response.text)
    return response.json
  }
}
