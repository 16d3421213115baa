// The queue job that runs a validation. At-least-once delivery is safe: a redelivered job finds its
// run Validated or Cancelled and does nothing, and a retry after a crash starts a fresh attempt
// (the run lifecycle's guarantees: src/platform/runs/run-lifecycle.ts).
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { runValidation, type EngineDependencies } from './engine.ts'
import type { ValidateJobData } from './validation.service.ts'

export function validationJob(deps: EngineDependencies): JobDefinition<ValidateJobData> {
  return {
    name: 'validate-batch',
    heartbeat: true,
    retryLimit: 5,
    rtoOf: (data) => data.rto, // one RTO's runs take turns; other RTOs' go ahead (issue 21, fairness)
    handle: async (data) => {
      await runValidation(deps, data.rto, data.runId)
    },
  }
}
