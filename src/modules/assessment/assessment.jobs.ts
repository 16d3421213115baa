// The queue job that runs an assessment. A worker that dies mid-run stops its heartbeat and the job is
// retried (a fresh attempt). A technical error is not retried: the run goes to Fault and a new request
// retries it (spec: Data quality assessment status, In Progress -> Fault). The run lifecycle's
// guarantees: src/platform/runs/run-lifecycle.ts.
import type { Logger } from 'pino'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { AssessmentFailure, runAssessment, type AssessmentEngineDependencies } from './assessment.engine.ts'
import { assessmentRuns } from './assessment.repo.ts'

export interface AssessJobData {
  rto: string
  runId: string
}

export function assessmentJob(deps: AssessmentEngineDependencies & { logger: Logger }): JobDefinition<AssessJobData> {
  return {
    name: 'assess-reporting-period',
    heartbeat: true,
    retryLimit: 5,
    rtoOf: (data) => data.rto, // one RTO's runs take turns; other RTOs' go ahead (issue 21, fairness)
    async handle({ rto, runId }) {
      try {
        await runAssessment(deps, rto, runId)
      } catch (error) {
        if (!(error instanceof AssessmentFailure)) throw error // the claim itself failed: let the queue retry
        deps.logger.error(
          { err: error.cause, rto, runId, attempt: error.attempt },
          'data quality assessment failed; status Fault',
        )
        await assessmentRuns.fault(deps.db, rto, runId, error.attempt)
      }
    },
  }
}
