// HTTP wiring for the eight resources inside a batch (spec: Resource endpoints inside a batch). For
// each segment: POST upload, GET list, GET one, DELETE one, and PUT upload addressed by UID. Each is
// also served under the older path without the jurisdiction segment, marked deprecated.
import Type, { type TSchema } from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { PageQuery, PagedEnvelope } from '../../platform/http/paging.ts'
import { Jurisdiction, Nullable, Strict, Uuid4 } from '../../platform/http/types.ts'
import { API_PREFIX } from '../batches/index.ts'
import { named, namedCopy } from '../../platform/http/schema-names.ts'
import { resourceDefinitions, type ResourceDefinition } from './resource.schemas.ts'
import * as service from './resources.service.ts'

const TransactionBatchToken = Type.String({ minLength: 1, maxLength: 100 })

const UploadResult = named(
  'UploadResult',
  Type.Object(
    {
      resourceType: Type.String(),
      resourceUID: Type.String({ format: 'uuid' }),
      changeTrackingIdentifier: Nullable(Type.String(), { description: 'as uploaded, unchanged' }),
      transactionBatchToken: Type.String(),
      hasBlockingValidationFailures: Type.Boolean({
        description: 'false for every accepted upload: upload checks structure only, and a structural failure is a 400',
      }),
      hasNonBlockingValidationFailures: Type.Boolean(),
    },
    { description: "201 when the record was created in the batch, 200 when it replaced the batch's earlier version" },
  ),
)

export function registerResourceRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  for (const plain of resourceDefinitions) {
    // Published once as components.schemas.<ResourceType>; one copy for both route forms.
    const definition = { ...plain, schema: namedCopy(plain.resourceType, plain.schema) }
    for (const legacy of [false, true]) registerResource(app as unknown as FastifyInstance, db, definition, legacy)
  }
}

type Params = { jurisdiction?: string; transactionBatchToken: string } & Record<string, string>

function registerResource(app: FastifyInstance, db: Db, definition: ResourceDefinition, legacy: boolean): void {
  const { segment, resourceType, uidField, schema } = definition
  const batchPath = legacy
    ? `${API_PREFIX}/transaction-batch/:transactionBatchToken`
    : `${API_PREFIX}/:jurisdiction/transaction-batch/:transactionBatchToken`
  const batchParams: Record<string, TSchema> = legacy
    ? { transactionBatchToken: TransactionBatchToken }
    : { jurisdiction: Jurisdiction, transactionBatchToken: TransactionBatchToken }
  const collectionParams = Strict(batchParams)
  const itemParams = Strict({ ...batchParams, [uidField]: Uuid4() })
  const common = { tags: [`Resources: ${resourceType}`], ...(legacy ? { deprecated: true } : {}) }
  const config = { scope: Scopes.report }
  const refOf = (params: Params) => ({ token: params.transactionBatchToken, jurisdiction: params.jurisdiction })

  app.post(
    `${batchPath}/${segment}`,
    {
      config,
      schema: {
        ...common,
        summary: `Upload a ${resourceType} (create or fully replace)`,
        params: collectionParams,
        body: schema,
        response: { 200: UploadResult, 201: UploadResult },
      },
    },
    async (request, reply) => {
      const { created, result } = await service.uploadRecord(
        db,
        actorOf(request),
        refOf(request.params as Params),
        definition,
        request.body as Record<string, unknown>,
      )
      return reply.code(created ? 201 : 200).send(result)
    },
  )

  app.put(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config,
      schema: {
        ...common,
        summary: `Upload a ${resourceType} at its UID (create or fully replace)`,
        description: `The body's ${uidField} must equal the path's.`,
        params: itemParams,
        body: schema,
        response: { 200: UploadResult, 201: UploadResult },
      },
    },
    async (request, reply) => {
      const params = request.params as Params
      const { created, result } = await service.uploadRecord(
        db,
        actorOf(request),
        refOf(params),
        definition,
        request.body as Record<string, unknown>,
        params[uidField],
      )
      return reply.code(created ? 201 : 200).send(result)
    },
  )

  app.get(
    `${batchPath}/${segment}`,
    {
      config,
      schema: {
        ...common,
        summary: `List the ${resourceType} records in the batch`,
        params: collectionParams,
        querystring: PageQuery,
        response: { 200: PagedEnvelope(schema, `${resourceType} records, ordered by UID`) },
      },
    },
    async (request) =>
      service.listRecords(
        db,
        actorOf(request),
        refOf(request.params as Params),
        definition,
        request.query as PageQuery,
      ),
  )

  app.get(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config,
      schema: {
        ...common,
        summary: `Read a ${resourceType} in the batch`,
        params: itemParams,
        response: { 200: schema },
      },
    },
    async (request) => {
      const params = request.params as Params
      return service.readRecord(db, actorOf(request), refOf(params), definition, params[uidField]!)
    },
  )

  app.delete(
    `${batchPath}/${segment}/:${uidField}`,
    {
      config,
      schema: {
        ...common,
        summary: `Remove a ${resourceType} from the batch`,
        params: itemParams,
        response: { 204: Type.Null({ description: 'removed' }) },
      },
    },
    async (request, reply) => {
      const params = request.params as Params
      await service.deleteRecord(db, actorOf(request), refOf(params), definition, params[uidField]!)
      return reply.code(204).send()
    },
  )
}
