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

function jobsWith(deps: JobDependencies, { assessment }: TestHooks) {
  const jobs = coreJobs(deps)
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
