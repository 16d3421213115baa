// The bulk path into the held dataset, for synthetic data (npm run seed:synthetic) and benchmarks:
// a batch's records become held through the same promotion and reconciliation indexing as submit,
// in one transaction, without validation. Never reachable over HTTP.
import { transactionsRunAlone, type Db } from '../../platform/db/database.ts'
import { markBatchSubmitted } from '../batches/index.ts'
import { FIRST_REPORTING_PERIOD } from '../../domain/reporting-period.ts'
import * as holdings from './holdings.repo.ts'
import { indexPendingSubmissions } from '../reconciliation/index.ts'

export async function submitWithoutValidation(
  db: Db,
  batch: { rto: string; token: string; jurisdiction: string; clientId: string },
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await holdings.lockRtoForSubmission(tx, batch.rto)
    const submission = await holdings.nextSubmission(tx)
    const promotion = { ...batch, submissionSeq: submission.seq, submittedAt: submission.at }
    const { records: count } = await holdings.promoteBatch(tx, promotion)
    await holdings.recordReportingPeriods(tx, promotion, FIRST_REPORTING_PERIOD)
    await markBatchSubmitted(tx, batch.rto, batch.token, submission.at)
    // Indexed now (with any submission still waiting before it): synthetic loads have no queue to wait for.
    await indexPendingSubmissions(tx, batch.rto, { afterSteps: transactionsRunAlone(db) })
    return count
  })
}
