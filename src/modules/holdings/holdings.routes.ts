// HTTP wiring for submit (both batch route forms) and the held state of one record.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { Strict, Uuid4 } from '../../platform/http/types.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { API_PREFIX, BatchParams, LegacyBatchParams } from '../batches/index.ts'
import { resourceDefinitions } from '../resources/index.ts'
import { HeldState, SubmittedBatch } from './holdings.schemas.ts'
import { heldState } from './holdings.service.ts'
import { submitBatch, type SubmitDependencies } from './submit.service.ts'

export function registerHoldingsRoutes(fastify: FastifyInstance, deps: SubmitDependencies): void {
  const { db } = deps
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  for (const legacy of [false, true]) {
    const base = legacy
      ? `${API_PREFIX}/transaction-batch/:transactionBatchToken`
      : `${API_PREFIX}/:jurisdiction/transaction-batch/:transactionBatchToken`
    app.post(
      `${base}/submit`,
      {
        config: { scope: Scopes.report },
        schema: {
          tags: ['Transaction batches'],
          ...(legacy ? { deprecated: true } : {}),
          params: legacy ? LegacyBatchParams : BatchParams,
          summary: 'Submit the batch',
          description:
            '200 with status Submitted when the latest validation is Validated, current (no record changed since it started) and has no blocking failures; otherwise 409 saying which condition failed. Atomic: every record becomes part of the held dataset, or none does. The batch is then closed.',
          response: {
            200: SubmittedBatch,
            409: problemResponse(
              'Not submitted; reason says why: validation-not-requested, validation-pending, validation-stale, blocking-validation-failures or batch-submitted.',
            ),
          },
        },
      },
      async (request) => {
        const params = request.params as { transactionBatchToken: string; jurisdiction?: string }
        return submitBatch(deps, actorOf(request), {
          token: params.transactionBatchToken,
          jurisdiction: params.jurisdiction,
        })
      },
    )
  }

  for (const definition of resourceDefinitions) {
    app.get(
      `${API_PREFIX}/${definition.segment}/:${definition.uidField}`,
      {
        config: { scope: Scopes.read },
        schema: {
          tags: ['Held data'],
          summary: `Whether a ${definition.resourceType} is held (stateInSubmission)`,
          description:
            "The latest submitted version of the record for the caller's RTO: In submission, Voided in submission, or Not found in submission (never submitted, or another RTO's). No record content is returned.",
          params: Strict({ [definition.uidField]: Uuid4() }),
          response: { 200: HeldState },
        },
      },
      async (request) =>
        heldState(
          db,
          actorOf(request),
          definition.resourceType,
          (request.params as Record<string, string>)[definition.uidField]!,
        ),
    )
  }
}
