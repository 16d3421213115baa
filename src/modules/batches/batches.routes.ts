// HTTP wiring for transaction batches (spec: Endpoints, Transaction batch). The older route forms
// without the jurisdiction segment are registered as deprecated aliases (spec: Versioning 5).
import Type from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import {
  BatchDetail,
  BatchPage,
  BatchParams,
  BatchSummary,
  JurisdictionParams,
  LegacyBatchParams,
} from './batches.schemas.ts'
import * as service from './batches.service.ts'

export const API_PREFIX = '/vet-provider/v1'
const tags = ['Transaction batches']

export function registerBatchRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const config = { scope: Scopes.report }

  app.post(
    `${API_PREFIX}/:jurisdiction/transaction-batch`,
    {
      config,
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

  for (const legacy of [false, true]) {
    const base = legacy ? `${API_PREFIX}/transaction-batch` : `${API_PREFIX}/:jurisdiction/transaction-batch`
    const params = legacy ? LegacyBatchParams : BatchParams
    const deprecated = legacy ? { deprecated: true } : {}
    const refOf = (p: { transactionBatchToken: string; jurisdiction?: string }): service.BatchRef => ({
      token: p.transactionBatchToken,
      jurisdiction: p.jurisdiction,
    })

    app.get(
      base,
      {
        config,
        schema: {
          tags,
          ...deprecated,
          summary: "List the caller's transaction batches, newest first",
          ...(legacy ? {} : { params: JurisdictionParams }),
          querystring: PageQuery,
          response: { 200: BatchPage },
        },
      },
      async (request) =>
        service.listBatches(
          db,
          actorOf(request),
          (request.params as { jurisdiction?: string }).jurisdiction,
          request.query,
        ),
    )

    app.get(
      `${base}/:transactionBatchToken`,
      {
        config,
        schema: {
          tags,
          ...deprecated,
          summary: 'Read a transaction batch with its record counts',
          params,
          response: { 200: BatchDetail },
        },
      },
      async (request) => service.getBatch(db, actorOf(request), refOf(request.params)),
    )

    app.delete(
      `${base}/:transactionBatchToken`,
      {
        config,
        schema: {
          tags,
          ...deprecated,
          summary: 'Discard a batch that has not been submitted, with everything in it',
          params,
          response: { 204: Type.Null({ description: 'discarded' }) },
        },
      },
      async (request, reply) => {
        await service.discardBatch(db, actorOf(request), refOf(request.params))
        return reply.code(204).send(null)
      },
    )
  }
}
