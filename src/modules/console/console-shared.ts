// What the console's area services (periods, batches, submit and NAT, records, quality, operator) share:
// the dependencies the console is built with, the periods and jurisdictions its pages offer, and the
// size of a page of results.
import type { Db, ReadDb } from '../../platform/db/database.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { currentReportingPeriod, FIRST_REPORTING_PERIOD, utcToday } from '../../domain/reporting-period.ts'
import { jurisdictions as jurisdictionsInSpecOrder, type Jurisdiction } from '../../domain/jurisdictions.ts'
import type { ValidateJobData } from '../validation/index.ts'
import type { SubmitJobData } from '../holdings/index.ts'
import type { NatImportJobData } from '../nat-bridge/index.ts'
import type { ReconcileJobData } from '../reconciliation/index.ts'
import type { AssessJobData } from '../assessment/index.ts'
import { DomainError, type ErrorKind } from '../../domain/errors.ts'

export interface ConsoleDependencies {
  db: Db
  /** The read handle (a replica when there is one) the API's held-data reads use. */
  readDb: ReadDb
  queue: Queue
  validationJob: JobDefinition<ValidateJobData>
  reconcileJob: JobDefinition<ReconcileJobData>
  assessmentJob: JobDefinition<AssessJobData>
  natImportJob: JobDefinition<NatImportJobData>
  submitJob: JobDefinition<SubmitJobData>
}

/** The reporting periods the console shows: the current one and up to nine before it, newest first. */
export function recentPeriods(today = utcToday()): number[] {
  const periods: number[] = []
  for (let period = currentReportingPeriod(today); period >= FIRST_REPORTING_PERIOD && periods.length < 10; ) {
    periods.push(period)
    period = period % 100 === 1 ? (Math.floor(period / 100) - 1) * 100 + 4 : period - 1
  }
  return periods
}

export const JURISDICTIONS: readonly Jurisdiction[] = jurisdictionsInSpecOrder

/** A reporting period and jurisdiction of the RTO, as the assessment use cases take it. */
export interface PeriodChoice {
  jurisdiction: Jurisdiction
  period: number
}

/** A result's resource UID as the record stores it (a result may name something else: a key it could not read). */
export const UID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Failed results (or outcomes, or NAT findings) a page of the console shows. */
export const RESULTS_PAGE_SIZE = 50

/**
 * The answer, or undefined when the service says there is nothing of that kind yet (a batch with no
 * completed validation run, a period with no assessment): the page shows an empty state, not an error.
 */
export async function unlessNone<T>(kind: ErrorKind, promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch (error) {
    if (error instanceof DomainError && error.kind === kind) return undefined
    throw error
  }
}
