// HTTP wiring for declarations (spec: Endpoints, Declarations). Both submission paths are served:
// POST /declaration with the period in the body, and POST /reporting-period/{jurisdiction}/{period}/declaration.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import type { Db } from '../../platform/db/database.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { PeriodParams } from '../assessment/index.ts'
import {
  DeclarationPage,
  DeclarationQuery,
  DeclarationRequest,
  DeclarationSaved,
  PeriodDeclarationRequest,
} from './declarations.schemas.ts'
import * as service from './declarations.service.ts'

const tags = ['Declarations']
const REFUSALS =
  'Refused with 409 problem details naming the reason: assessment-not-requested (no data quality assessment exists for the period), assessment-not-validated (its status is not Validated), blocking-assessment-outcomes (its results include an Error), reportable-activity-held (a Nil_activity_report while enrolments with activity in the period are held).'
const EXPERIMENTAL = 'Maturity level 2 (experimental): caveats and changes are possible (spec: Versioning 3).'

export const declarationRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const config = { scope: Scopes.declare }

  app.post(
    '/declaration',
    {
      config: { ...config, audit: 'declaration.make' },
      schema: {
        tags,
        body: DeclarationRequest,
        summary: 'Declare a reporting period (or report nil activity)',
        description: `200 with a message saying the declaration was saved for the period and jurisdiction (and, when made after its due date, that the RTO may be contacted for a reason for late reporting). The due date is the spec's rule (one month after the period ended) unless the collector set another for the period and jurisdiction or gave the RTO an extension. The latest declaration of a period supersedes earlier ones; nothing is locked. ${REFUSALS} ${EXPERIMENTAL}`,
        response: {
          200: DeclarationSaved,
          409: problemResponse(
            'The period is not ready to declare (reason assessment-not-requested, assessment-not-validated, blocking-assessment-outcomes or reportable-activity-held).',
          ),
        },
      },
    },
    async (request) => service.declare(db, actorOf(request), request.body),
  )

  app.post(
    '/reporting-period/:jurisdiction/:ReportingPeriodNumber/declaration',
    {
      config: { ...config, audit: 'declaration.make' },
      schema: {
        tags,
        params: PeriodParams,
        body: PeriodDeclarationRequest,
        summary: 'Declare the reporting period in the path',
        description: `Same as POST /declaration, with the period and jurisdiction taken from the path; the body may leave them out, and if it gives them they must agree with the path. ${REFUSALS} ${EXPERIMENTAL}`,
        response: {
          200: DeclarationSaved,
          409: problemResponse(
            'The period is not ready to declare (reason assessment-not-requested, assessment-not-validated, blocking-assessment-outcomes or reportable-activity-held).',
          ),
        },
      },
    },
    async (request) => service.declareForPeriod(db, actorOf(request), request.params, request.body),
  )

  app.get(
    '/declaration',
    {
      config,
      schema: {
        tags,
        querystring: DeclarationQuery,
        summary: 'Declarations of reporting periods, with due dates',
        description: `Give reportingPeriodNumber (1 to 10, comma-separated) or startDate with endDate. One row per period and jurisdiction (the jurisdiction asked for, or every jurisdiction the RTO has submitted data under or declared for): its current declaration, or null with declarationDueDate. ${EXPERIMENTAL}`,
        response: { 200: DeclarationPage },
      },
    },
    async (request) => service.listDeclarations(db, actorOf(request), request.query),
  )
}
