// HTTP wiring for data quality assessments (spec: Endpoints, Data quality assessment). Both spellings
// of the results path are served: failed-validation-results and failed-Assessment-results.
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { AssessmentResultPage, AssessmentStatus, PeriodParams } from './assessment.schemas.ts'
import * as service from './assessment.service.ts'

const tags = ['Data quality assessment']
const EXPERIMENTAL = 'Maturity level 2 (experimental): caveats and changes are possible (spec: Versioning 3).'

export const assessmentRoutes: FastifyPluginAsyncTypebox<service.AssessmentDependencies> = async (
  app,
  { db, queue, job },
) => {
  const deps = { db, queue, job } // without the plugin options (prefix)
  const config = { scope: Scopes.declare }
  const base = '/reporting-period/:jurisdiction/:ReportingPeriodNumber'
  const params = PeriodParams

  app.post(
    `${base}/validate`,
    {
      config: { ...config, audit: 'assessment.request' },
      schema: {
        tags,
        params,
        summary: 'Request a data quality assessment of the period',
        description: `Queues a period-wide assessment of the RTO's held data for the jurisdiction and reporting period and answers 201 with the initial status (Queued). 409 (reason assessment-in-progress) while an assessment is Queued or In Progress. 400 for a period before 202601 or after the current quarter. ${EXPERIMENTAL}`,
        response: {
          201: AssessmentStatus,
          409: problemResponse('An assessment of the period is Queued or In Progress (reason assessment-in-progress).'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.requestAssessment(deps, actorOf(request), request.params)),
  )

  app.get(
    `${base}/validate`,
    {
      config,
      schema: {
        tags,
        params,
        summary: "Status of the period's data quality assessment",
        description: `assessmentStatus is Required (never requested, cancelled, or data submitted since the last assessment began), Queued, In Progress, Validated or Fault. The failure indicators describe the latest completed assessment, whose results stay readable while a new one runs. ${EXPERIMENTAL}`,
        response: { 200: AssessmentStatus },
      },
    },
    async (request) => service.getAssessmentStatus(db, actorOf(request), request.params),
  )

  app.delete(
    `${base}/validate`,
    {
      config: { ...config, audit: 'assessment.cancel' },
      schema: {
        tags,
        params,
        summary: 'Cancel a Queued or In Progress assessment',
        description: `204 when cancelled: the status becomes Required and partial results are never promoted (earlier completed results stay readable). 409 (reason no-pending-assessment) when none is Queued or In Progress. ${EXPERIMENTAL}`,
        response: {
          204: Type.Null({ description: 'cancelled' }),
          409: problemResponse('No assessment is Queued or In Progress (reason no-pending-assessment).'),
        },
      },
    },
    async (request, reply) => {
      await service.cancelAssessment(db, actorOf(request), request.params)
      return reply.code(204).send(null)
    },
  )

  for (const [suffix, deprecated] of [
    ['failed-validation-results', false],
    ['failed-Assessment-results', true],
  ] as const) {
    app.get(
      `${base}/${suffix}`,
      {
        config,
        schema: {
          tags,
          params,
          querystring: PageQuery,
          ...(deprecated ? { deprecated: true } : {}),
          summary: deprecated
            ? 'Failed outcomes of the latest completed assessment (alternative spelling)'
            : 'Failed outcomes of the latest completed assessment',
          description: `Errors (blocking declarations) and Warnings, paged, results of one concern (AssessmentGroupingId) together. 404 with problem type /problems/no-assessment-run until an assessment of the period has completed (the period itself is never unknown: a period out of range is 400). ${deprecated ? 'Same as failed-validation-results; the spec spells the path both ways. ' : ''}${EXPERIMENTAL}`,
          response: {
            200: AssessmentResultPage,
            404: problemResponse('type /problems/no-assessment-run: no assessment of the period has completed yet.'),
          },
        },
      },
      async (request) => service.listFailedResults(db, actorOf(request), request.params, request.query),
    )
  }
}
