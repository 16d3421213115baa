// The service as tests and benchmarks build it: the production core and HTTP app (src/core.ts,
// src/app.ts) with what only they need, which production options know nothing of: extra routes
// registered with the platform's security and limits, and instrumented data quality assessments.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../src/config/config.ts'
import { coreJobs, createCore, startBackgroundWork, type JobDependencies } from '../../src/core.ts'
import { createHttpApp, type Service, type ServiceOptions } from '../../src/app.ts'
import type { Db } from '../../src/platform/db/database.ts'
import {
  assessmentJob,
  assessmentRules,
  type AssessmentRule,
  type AssessmentScope,
} from '../../src/modules/assessment/index.ts'
import { submitJob, type SubmitJobOptions } from '../../src/modules/holdings/index.ts'
import { reconciliationJob, type ReconcileJobOptions } from '../../src/modules/reconciliation/index.ts'
import { droppedLinesAcknowledged, natImportJob, type NatImportJobOptions } from '../../src/modules/nat-bridge/index.ts'

export interface TestHooks {
  /** Extra routes, registered after the service's own, with the platform's security and limits. */
  extraRoutes?: (app: FastifyInstance, db: Db) => void
  /**
   * Data quality assessments: rules run after the catalogue's (a test uses one to cause a technical
   * error), and a hook awaited after each rule (a test holds a run In Progress).
   */
  assessment?: {
    extraRules?: readonly AssessmentRule[]
    afterRule?: (technicalRuleId: string, scope: AssessmentScope) => Promise<void>
  }
  /** The console's submit job: a hook awaited as each stage starts (a test holds a submit, or crashes it part-way). */
  submit?: { afterStage: NonNullable<SubmitJobOptions['afterStage']> }
  /** The NAT import job: hooks called with each progress the import tells, and once its batch is stored (a test crashes an import there). */
  natImport?: Pick<NatImportJobOptions, 'onProgress' | 'afterImport'>
  /** The reconciliation job: steps forced on or off, their slice size, a hook after each step (a test fails a run there). */
  reconciliation?: ReconcileJobOptions
}

/** createService (src/app.ts), with the hooks. */
export async function createServiceForTests(
  config: Config,
  options: ServiceOptions = {},
  hooks: TestHooks = {},
): Promise<Service> {
  const core = await createCore(config, options, (deps) => jobsWith(deps, hooks))
  try {
    const app = await createHttpApp(core)
    hooks.extraRoutes?.(app, core.database.db)
    await app.ready()
    if (options.workers ?? config.runWorkers) await startBackgroundWork(core)
    return { ...core, app }
  } catch (error) {
    await core.close().catch(() => {})
    throw error
  }
}

function jobsWith(deps: JobDependencies, { assessment, submit, natImport, reconciliation }: TestHooks) {
  let jobs = coreJobs(deps)
  if (reconciliation)
    jobs = {
      ...jobs,
      reconciliation: reconciliationJob(deps.db, {
        sliceRecords: deps.config.reconciliation.sliceRecords,
        ...reconciliation,
      }),
    }
  if (natImport)
    jobs = {
      ...jobs,
      natImport: natImportJob(deps.db, {
        natFilesBytes: deps.config.limits.natFilesBytes,
        ...natImport,
      }),
    }
  if (submit)
    jobs = {
      ...jobs,
      submit: submitJob({
        db: deps.db,
        queue: deps.queue,
        reconcileJob: jobs.reconciliation,
        submitConditions: [droppedLinesAcknowledged],
        afterStage: submit.afterStage,
      }),
    }
  if (!assessment) return jobs
  const rules = [...assessmentRules, ...(assessment.extraRules ?? [])]
  return {
    ...jobs,
    assessment: assessmentJob({
      db: deps.db,
      logger: deps.logger,
      rules,
      afterRule: assessment.afterRule,
      sliceRecords: deps.config.assessment.sliceRecords,
    }),
  }
}
