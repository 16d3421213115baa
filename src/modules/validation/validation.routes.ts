// HTTP wiring for batch validation (spec: Endpoints, Transaction batch: validate and
// failed-validation-results). Both batch route forms are served: the
// current one with {jurisdiction}, and the older one without it as a deprecated twin
// (platform/http/legacy-twins.ts).
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { BatchParams } from '../batches/index.ts'
import { ValidationResultPage, ValidationStatus } from './validation.schemas.ts'
import * as service from './validation.service.ts'

const tags = ['Validation']
// 404 means two things on these operations; the problem type tells them apart (docs/decisions.md).
const noBatch =
  "type /problems/not-found: no such transaction batch for the caller's RTO (another RTO's, or under another jurisdiction, is not found either)"
const noRunStatus = problemResponse(
  `Two meanings, told apart by the problem type. ${noBatch}; type /problems/no-validation-run: the batch exists but no validation was requested (or the last request was cancelled).`,
)
const noRunResults = problemResponse(
  `Two meanings, told apart by the problem type. ${noBatch}; type /problems/no-validation-run: the batch exists but no validation run has completed yet.`,
)

// The jurisdiction is absent on the deprecated twins.
const refOf = (params: { transactionBatchToken: string; jurisdiction?: string }) => ({
  token: params.transactionBatchToken,
  jurisdiction: params.jurisdiction,
})

export const validationRoutes: FastifyPluginAsyncTypebox<service.ValidationDependencies> = async (app, deps) => {
  const { db } = deps
  const config = { scope: Scopes.report, legacyTwin: true }
  const batchPath = '/:jurisdiction/transaction-batch/:transactionBatchToken'

  app.post(
    `${batchPath}/validate`,
    {
      config: { ...config, audit: 'validation.request' },
      schema: {
        tags,
        params: BatchParams,
        summary: 'Request validation of the batch',
        description:
          'Queues a validation run of the batch and answers 201 with validationStatus Queued. While a run is still Queued, a repeated request answers that run with 200; a run InProgress is superseded by a new one (201). 409 once the batch is submitted.',
        response: {
          200: ValidationStatus,
          201: ValidationStatus,
          409: problemResponse('The batch is submitted (reason batch-submitted).'),
        },
      },
    },
    async (request, reply) => {
      const { created, status } = await service.requestValidation(deps, actorOf(request), refOf(request.params))
      return reply.code(created ? 201 : 200).send(status)
    },
  )

  app.get(
    `${batchPath}/validate`,
    {
      config,
      schema: {
        tags,
        params: BatchParams,
        summary: "Status of the batch's latest validation run",
        description:
          'validationStatus moves Queued, InProgress, Validated. The failure indicators are meaningful once Validated. isCurrent is false when records changed after the run started. 404 with problem type /problems/no-validation-run when no validation was requested (or the last request was cancelled); an unknown batch is 404 /problems/not-found.',
        response: { 200: ValidationStatus, 404: noRunStatus },
      },
    },
    async (request) => service.getValidationStatus(db, actorOf(request), refOf(request.params)),
  )

  app.delete(
    `${batchPath}/validate`,
    {
      config: { ...config, audit: 'validation.cancel' },
      schema: {
        tags,
        params: BatchParams,
        summary: 'Cancel a Queued or InProgress validation run',
        description:
          '204 when a run was cancelled (its partial results are discarded, never promoted); 409 when no run is Queued or InProgress. Results of an earlier completed run stay readable.',
        response: {
          204: Type.Null({ description: 'cancelled' }),
          409: problemResponse(
            'No run is Queued or InProgress (reason no-pending-validation), or the batch is submitted (batch-submitted).',
          ),
        },
      },
    },
    async (request, reply) => {
      await service.cancelValidation(db, actorOf(request), refOf(request.params))
      return reply.code(204).send(null)
    },
  )

  app.get(
    `${batchPath}/failed-validation-results`,
    {
      config: { ...config, audit: 'validation.results.read' },
      schema: {
        tags,
        params: BatchParams,
        querystring: PageQuery,
        summary: 'Failed results of the latest completed validation run',
        description:
          'Paged in a stable order: record rule results in record order, then set rule results, results of one group together. 404 with problem type /problems/no-validation-run until a run has completed; an unknown batch is 404 /problems/not-found.',
        response: { 200: ValidationResultPage, 404: noRunResults },
      },
    },
    async (request) => service.listFailedResults(db, actorOf(request), refOf(request.params), request.query),
  )
}
