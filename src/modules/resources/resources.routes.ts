// HTTP wiring for the eight resources inside a batch (spec: Resource endpoints inside a batch). For
// each segment: POST upload, GET list, GET one, DELETE one, and PUT upload addressed by UID. Each is
// also served under the older path without the jurisdiction segment, marked deprecated
// (platform/http/legacy-twins.ts). Then the bulk upload of many records of any types
// (bulk-upload.routes.ts), an extension without a twin.
import Type, { type Static } from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery, PagedEnvelope } from '../../platform/http/paging.ts'
import { Jurisdiction, Strict, Uuid4 } from '../../platform/http/types.ts'
import { namedCopy } from '../../platform/http/schema-names.ts'
import { auditInStatement } from '../../platform/http/audit-hook.ts'
import type { UidField } from '../../domain/resource-types.ts'
import { resourceDefinitions, type ResourceDefinition } from './resource.schemas.ts'
import * as service from './resources.service.ts'
import { UploadResult } from './upload-result.schemas.ts'
import { bulkUploadRoutes } from './bulk-upload.routes.ts'

const TransactionBatchToken = Type.String({ minLength: 1, maxLength: 100 })

export const resourceRoutes: FastifyPluginAsyncTypebox<{ db: Db; maxBulkRecords: number }> = async (
  app,
  { db, maxBulkRecords },
) => {
  // Each schema is published once as components.schemas.<ResourceType>, one copy for every route that takes it.
  const definitions = resourceDefinitions.map((plain) => ({
    ...plain,
    schema: namedCopy(plain.resourceType, plain.schema),
  }))
  // One plugin per resource type: each type's deprecated twins follow its own routes.
  for (const definition of definitions) await app.register(resourceTypeRoutes, { db, definition })
  // The bulk upload (an extension): its own plugin, the only one that takes NDJSON.
  await app.register(bulkUploadRoutes, { db, definitions, maxRecords: maxBulkRecords })
}

// The jurisdiction is absent on the deprecated twins.
const refOf = (params: { transactionBatchToken: string; jurisdiction?: string }) => ({
  token: params.transactionBatchToken,
  jurisdiction: params.jurisdiction,
})

const resourceTypeRoutes: FastifyPluginAsyncTypebox<{ db: Db; definition: ResourceDefinition }> = async (
  app,
  { db, definition },
) => {
  const { segment, resourceType, uidField, schema } = definition
  // The upload body as the service takes it: the schema has validated it as the resource type.
  const body = Type.Unsafe<Record<string, unknown>>(schema)
  const batchPath = '/:jurisdiction/transaction-batch/:transactionBatchToken'
  const batchParams = { jurisdiction: Jurisdiction, transactionBatchToken: TransactionBatchToken }
  const collectionParams = Strict(batchParams)
  // The UID parameter is named after the resource type (studentUID...), a name TypeScript cannot follow
  // through the schema; the handlers read it as params[uidField].
  const itemParams = Type.Unsafe<Static<typeof collectionParams> & Record<UidField, string>>(
    Strict({ ...batchParams, [uidField]: Uuid4() }),
  )
  const common = { tags: [`Resources: ${resourceType}`] }
  const config = { scope: Scopes.report, legacyTwin: true }

  app.post(
    `${batchPath}/${segment}`,
    {
      config: { ...config, audit: { action: 'record.upload', recordType: resourceType } },
      schema: {
        ...common,
        summary: `Upload a ${resourceType} (create or fully replace)`,
        params: collectionParams,
        body,
        response: { 200: UploadResult, 201: UploadResult },
      },
    },
    async (request, reply) => {
      // The UID is in the body here; the audit entry names it (the schema has checked it is a UUID).
      request.auditNote = { recordId: String(request.body[uidField]) }
      // The entry is written by the upload's own statement (one round trip; it commits with the record).
      const { created, result } = await service.uploadRecord(
        db,
        actorOf(request),
        refOf(request.params),
        definition,
        request.body,
        undefined,
        auditInStatement(request),
      )
      return reply.code(created ? 201 : 200).send(result)
    },
  )

  app.put(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config: { ...config, audit: { action: 'record.upload', recordType: resourceType } },
      schema: {
        ...common,
        summary: `Upload a ${resourceType} at its UID (create or fully replace)`,
        description: `The body's ${uidField} must equal the path's.`,
        params: itemParams,
        body,
        response: { 200: UploadResult, 201: UploadResult },
      },
    },
    async (request, reply) => {
      const { created, result } = await service.uploadRecord(
        db,
        actorOf(request),
        refOf(request.params),
        definition,
        request.body,
        request.params[uidField],
        auditInStatement(request),
      )
      return reply.code(created ? 201 : 200).send(result)
    },
  )

  app.get(
    `${batchPath}/${segment}`,
    {
      config: { ...config, audit: { action: 'record.list', recordType: resourceType } },
      schema: {
        ...common,
        summary: `List the ${resourceType} records in the batch`,
        params: collectionParams,
        querystring: PageQuery,
        response: { 200: PagedEnvelope(schema, `${resourceType} records, ordered by UID`) },
      },
    },
    async (request) => service.listRecords(db, actorOf(request), refOf(request.params), definition, request.query),
  )

  app.get(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config: { ...config, audit: { action: 'record.read', recordType: resourceType } },
      schema: {
        ...common,
        summary: `Read a ${resourceType} in the batch`,
        params: itemParams,
        response: { 200: schema },
      },
    },
    async (request) =>
      service.readRecord(db, actorOf(request), refOf(request.params), definition, request.params[uidField]),
  )

  app.delete(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config: { ...config, audit: { action: 'record.remove', recordType: resourceType } },
      schema: {
        ...common,
        summary: `Remove a ${resourceType} from the batch`,
        params: itemParams,
        response: { 204: Type.Null({ description: 'removed' }) },
      },
    },
    async (request, reply) => {
      await service.deleteRecord(db, actorOf(request), refOf(request.params), definition, request.params[uidField])
      return reply.code(204).send(null)
    },
  )
}
