// HTTP wiring for submit (both batch route forms: the older one without the jurisdiction segment is a
// deprecated twin, platform/http/legacy-twins.ts), the held state of one record, and the held records
// export (an extension). Submit writes the primary (db); the held state and the export read the read
// handle (readDb), the replica when there is one (docs/decisions.md, "Read routing (issue 21)").
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { Strict, Uuid4 } from '../../platform/http/types.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { BatchParams } from '../batches/index.ts'
import { resourceDefinitions } from '../resources/index.ts'
import type { UidField } from '../../domain/resource-types.ts'
import type { ReadDb } from '../../platform/db/database.ts'
import { HeldState, SubmitQuery, SubmittedBatch } from './holdings.schemas.ts'
import { heldState } from './holdings.service.ts'
import { submitBatch, type SubmitDependencies } from './submit.service.ts'
import { heldRecordsRoutes } from './held-records.routes.ts'

export const holdingsRoutes: FastifyPluginAsyncTypebox<SubmitDependencies & { readDb: ReadDb }> = async (
  app,
  { db, readDb, queue, reconcileJob, submitConditions },
) => {
  // Its own plugin, so the deprecated twin of submit comes before the held-state routes.
  await app.register(submitRoutes, { db, queue, reconcileJob, submitConditions })
  await app.register(heldRecordsRoutes, { readDb })

  for (const definition of resourceDefinitions) {
    app.get(
      `/${definition.segment}/:${definition.uidField}`,
      {
        config: { scope: Scopes.read, audit: { action: 'held-record.read', recordType: definition.resourceType } },
        schema: {
          tags: ['Held data'],
          summary: `Whether a ${definition.resourceType} is held (stateInSubmission)`,
          description:
            "The latest submitted version of the record for the caller's RTO: In submission, Voided in submission, or Not found in submission (never submitted, or another RTO's). No record content is returned.",
          // Named after the resource type (studentUID...), a name TypeScript cannot follow through the schema.
          params: Type.Unsafe<Record<UidField, string>>(Strict({ [definition.uidField]: Uuid4() })),
          response: { 200: HeldState },
        },
      },
      async (request) =>
        heldState(readDb, actorOf(request), definition.resourceType, request.params[definition.uidField]),
    )
  }
}

const submitRoutes: FastifyPluginAsyncTypebox<SubmitDependencies> = async (app, deps) => {
  app.post(
    '/:jurisdiction/transaction-batch/:transactionBatchToken/submit',
    {
      config: { scope: Scopes.report, legacyTwin: true, audit: 'batch.submit' },
      schema: {
        tags: ['Transaction batches'],
        params: BatchParams,
        querystring: SubmitQuery,
        summary: 'Submit the batch',
        description:
          '200 with status Submitted when the latest validation is Validated, current (no record changed since it started) and has no blocking failures; otherwise 409 saying which condition failed. Atomic: every record becomes part of the held dataset, or none does. The batch is then closed. A batch made by a NAT import (POST .../nat-import) that left NAT problems out (natProblemCount above 0: lines it could not read or map, records refused) lacks what they name: it is submitted only with acknowledgeDropped equal to that count (an extension: the request has no body, as specified), else 409 nat-lines-dropped.',
        response: {
          200: SubmittedBatch,
          409: problemResponse(
            'Not submitted; reason says why: validation-not-requested, validation-pending, validation-stale, blocking-validation-failures, batch-submitted, or nat-lines-dropped (the NAT import that made the batch left out droppedCount NAT problems, and acknowledgeDropped did not give that number).',
          ),
        },
      },
    },
    async (request) => {
      const params: { transactionBatchToken: string; jurisdiction?: string } = request.params // absent on the twin
      return submitBatch(
        deps,
        actorOf(request),
        { token: params.transactionBatchToken, jurisdiction: params.jurisdiction },
        request.query,
      )
    },
  )
}
