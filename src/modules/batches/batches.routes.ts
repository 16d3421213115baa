// HTTP wiring for transaction batches (spec: Endpoints, Transaction batch). The older route forms
// without the jurisdiction segment are served as deprecated twins (spec: Versioning 5;
// platform/http/legacy-twins.ts).
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import { BatchDetail, BatchPage, BatchParams, BatchSummary, JurisdictionParams } from './batches.schemas.ts'
import * as service from './batches.service.ts'

const tags = ['Transaction batches']

// The jurisdiction is absent on the deprecated twins.
const jurisdictionOf = (params: { jurisdiction?: string }) => params.jurisdiction
const batchRefOf = (params: { transactionBatchToken: string; jurisdiction?: string }): service.BatchRef => ({
  token: params.transactionBatchToken,
  jurisdiction: params.jurisdiction,
})

export const batchRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const config = { scope: Scopes.report }
  const twinned = { ...config, legacyTwin: true }

  app.post(
    '/:jurisdiction/transaction-batch',
    {
      config: { ...config, audit: { action: 'batch.create', batchFromAnswer: true } },
      schema: {
        tags,
        summary: 'Create a transaction batch',
        description:
          "Creates an empty batch for the caller's RTO in this jurisdiction. No body is needed; an empty JSON object is accepted.",
        params: JurisdictionParams,
        response: { 201: BatchSummary },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await service.createBatch(db, actorOf(request), request.params.jurisdiction))
    },
  )

  app.get(
    '/:jurisdiction/transaction-batch',
    {
      config: twinned,
      schema: {
        tags,
        summary: "List the caller's transaction batches, newest first",
        params: JurisdictionParams,
        querystring: PageQuery,
        response: { 200: BatchPage },
      },
    },
    async (request) => service.listBatches(db, actorOf(request), jurisdictionOf(request.params), request.query),
  )

  app.get(
    '/:jurisdiction/transaction-batch/:transactionBatchToken',
    {
      config: twinned,
      schema: {
        tags,
        summary: 'Read a transaction batch with its record counts',
        params: BatchParams,
        response: { 200: BatchDetail },
      },
    },
    async (request) => service.getBatch(db, actorOf(request), batchRefOf(request.params)),
  )

  app.delete(
    '/:jurisdiction/transaction-batch/:transactionBatchToken',
    {
      config: { ...twinned, audit: 'batch.discard' },
      schema: {
        tags,
        summary: 'Discard a batch that has not been submitted, with everything in it',
        params: BatchParams,
        response: { 204: Type.Null({ description: 'discarded' }) },
      },
    },
    async (request, reply) => {
      await service.discardBatch(db, actorOf(request), batchRefOf(request.params))
      return reply.code(204).send(null)
    },
  )
}
