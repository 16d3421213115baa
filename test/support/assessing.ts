// What an SMS does around data quality and declarations, as test steps: a fresh RTO of its own (so
// period-wide assessments see only the test's data), request an assessment and wait for it, read every
// failed outcome, declare. Every step is a real HTTP request to the service under test.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { addClient } from '../../src/platform/auth/clients.service.ts'
import { ALL_SCOPES } from '../../src/platform/auth/scopes.ts'
import { firstDayOf, lastDayOf, utcToday } from '../../src/domain/reporting-period.ts'
import { Reporter, V1 } from './reporting.ts'
import type { TestService } from './test-service.ts'
import { waitFor } from './wait.ts'

/** The period the examples' activity (October 2026) is reported in. */
export const PERIOD = 202604

/**
 * What an assessment of RTO 90001's NSW reporting in `period` looks at, as the engine builds it (as at
 * the earlier of the period's last day and today), to run a rule's SQL directly.
 */
export function assessmentScopeOf(period = PERIOD) {
  const periodEnd = lastDayOf(period)
  const today = utcToday()
  return {
    rto: '90001',
    jurisdiction: 'NSW',
    period,
    periodStart: firstDayOf(period),
    periodEnd,
    asAt: today < periodEnd ? today : periodEnd,
  }
}

export interface Rto {
  rto: string
  clientId: string
  reporter: Reporter
  assessor: Assessor
}

/** A new RTO with one client granted every scope. */
export async function newRto(t: TestService, rto = `T${randomBytes(4).toString('hex')}`): Promise<Rto> {
  return newClientOf(t, rto)
}

/** Another client of an RTO (an RTO may report through more than one SMS). */
export async function newClientOf(t: TestService, rto: string): Promise<Rto> {
  const clientId = `client-${randomBytes(5).toString('hex')}`
  const { secret } = await addClient(t.service.database.db, { clientId, rto, scopes: [...ALL_SCOPES] })
  const token = await t.token(clientId, secret)
  const reporter = new Reporter(t.baseUrl, token)
  return { rto, clientId, reporter, assessor: new Assessor(reporter) }
}

export class Assessor {
  readonly reporter: Reporter
  constructor(reporter: Reporter) {
    this.reporter = reporter
  }

  path(jurisdiction: string, period: number | string, rest: string): string {
    return `${V1}/reporting-period/${jurisdiction}/${period}${rest}`
  }

  request(method: string, path: string, json?: unknown) {
    return this.reporter.request(method, path, json)
  }

  status(period: number | string = PERIOD, jurisdiction = 'NSW') {
    return this.request('GET', this.path(jurisdiction, period, '/validate'))
  }

  /** POST validate, asserting 201. */
  async request201(period: number = PERIOD, jurisdiction = 'NSW'): Promise<Record<string, any>> {
    const response = await this.request('POST', this.path(jurisdiction, period, '/validate'))
    assert.equal(response.status, 201, response.text)
    return response.json
  }

  /** Polls GET validate while the assessment is Queued or In Progress (at most timeoutMs). */
  async waitForFinished(
    period: number = PERIOD,
    jurisdiction = 'NSW',
    timeoutMs = 60_000,
  ): Promise<Record<string, any>> {
    let last: string | undefined
    return waitFor(
      () => `assessment still ${last}`,
      async () => {
        const response = await this.status(period, jurisdiction)
        assert.equal(response.status, 200, response.text)
        last = response.json.assessmentStatus
        return ['Queued', 'In Progress'].includes(response.json.assessmentStatus)
          ? undefined
          : (response.json as Record<string, any>)
      },
      { timeoutMs },
    )
  }

  /** Polls GET validate until the status is the one given. */
  async waitForStatus(
    wanted: string,
    period: number = PERIOD,
    jurisdiction = 'NSW',
    timeoutMs = 60_000,
  ): Promise<Record<string, any>> {
    let last: string | undefined
    return waitFor(
      () => `assessment ${last}, not ${wanted}`,
      async () => {
        const response = await this.status(period, jurisdiction)
        last = response.json?.assessmentStatus
        return last === wanted ? (response.json as Record<string, any>) : undefined
      },
      { timeoutMs },
    )
  }

  /** Every failed outcome of the latest completed assessment, all pages. */
  async results(
    period: number = PERIOD,
    jurisdiction = 'NSW',
    suffix = 'failed-validation-results',
  ): Promise<Record<string, any>[]> {
    const results: Record<string, any>[] = []
    for (let page = 1; ; page++) {
      const response = await this.request(
        'GET',
        this.path(jurisdiction, period, `/${suffix}?pageSize=500&pageNumber=${page}`),
      )
      assert.equal(response.status, 200, response.text)
      results.push(...response.json.results)
      if (page >= response.json.numberOfPages) return results
    }
  }

  /** Requests an assessment, waits for it to finish, and reads its outcomes. */
  async assess(
    period: number = PERIOD,
    jurisdiction = 'NSW',
  ): Promise<{ status: Record<string, any>; results: Record<string, any>[] }> {
    await this.request201(period, jurisdiction)
    const status = await this.waitForFinished(period, jurisdiction)
    assert.equal(status.assessmentStatus, 'Validated', JSON.stringify(status))
    return { status, results: await this.results(period, jurisdiction) }
  }

  declare(body: Record<string, unknown>) {
    return this.request('POST', `${V1}/declaration`, body)
  }
}

/** A valid declaration body for the period. */
export function declarationBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reportingPeriodNumber: PERIOD,
    jurisdiction: 'NSW',
    declarationType: 'Declaration',
    RTOAcceptanceOfDeclaration: true,
    RTOUserName: 'Alex Citizen',
    RTOUserEmailAddress: 'alex.citizen@example.edu.au',
    ...changes,
  }
}
