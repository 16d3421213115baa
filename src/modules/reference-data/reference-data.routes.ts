// HTTP wiring for reference data synchronisation (spec: Endpoints, Reference data synchronisation). It
// reads the read handle: the replica when there is one (docs/decisions.md, "Read routing (issue 21)").
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ReadDb } from '../../platform/db/database.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { MAX_PAGE_NUMBER, PagedEnvelope } from '../../platform/http/paging.ts'
import { DateString, Nullable, Strict, StringEnum, UtcDateTime } from '../../platform/http/types.ts'
import { named } from '../../platform/http/schema-names.ts'
import { datasets } from './datasets.ts'
import * as service from './reference-data.service.ts'
import { createSyncPageCache } from './sync-page-cache.ts'

export const DEFAULT_SYNC_PAGE_SIZE = 500

const syncQuery = {
  changedSince: UtcDateTime({
    description:
      'watermark, inclusive: versions stamped at or after it are returned; 1901-01-01T00:00:00Z for a full load',
  }),
  // Defaults are the schema's (filled in by the request check, published for generated clients).
  PageNumber: Type.Integer({ minimum: 1, maximum: MAX_PAGE_NUMBER, default: 1, description: 'page to return, from 1' }),
  PageSize: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: DEFAULT_SYNC_PAGE_SIZE,
    description: 'records per page, at most 500',
  }),
}

const ReferenceRecord = named(
  'ReferenceRecord',
  Type.Object(
    {
      recordId: Type.String({
        format: 'uuid',
        description: 'stable identity of the record across its versions: upsert by it',
      }),
      versionId: Type.Integer({ description: 'this version; orders versions stamped in the same instant' }),
      code: Type.String(),
      description: Type.String(),
      avetmissCode: Nullable(Type.String(), { description: 'the AVETMISS 8.0 code of a word, where there is one' }),
      businessEffectiveFrom: Nullable(DateString()),
      businessEffectiveTo: Nullable(DateString()),
      status: StringEnum(['Active', 'Inactive'] as const),
      sysEffectiveFrom: Type.String({
        description: 'system time of this version, UTC, microseconds: the watermark to store is the largest seen',
      }),
    },
    { description: 'one version of a reference or classification record' },
  ),
)

const description =
  "Versions of the dataset's records stamped at or after changedSince, oldest first. Process every page, then store the largest sysEffectiveFrom seen as the next changedSince; upsert by recordId. Records missing from a response are not deleted."

/** cacheRecords: how many records of synchronisation pages to keep in memory (0 keeps none). */
export const referenceDataRoutes: FastifyPluginAsyncTypebox<{ readDb: ReadDb; cacheRecords: number }> = async (
  app,
  { readDb: db, cacheRecords },
) => {
  const config = { scope: Scopes.referenceData }
  const pageOf = (query: { PageNumber: number; PageSize: number }) => ({
    pageNumber: query.PageNumber,
    pageSize: query.PageSize,
  })
  const cache = createSyncPageCache(cacheRecords)
  const names = (kind: string) =>
    datasets
      .filter((d) => d.kind === kind)
      .map((d) => d.name)
      .join(', ')

  app.get(
    '/reference-data/:dataset',
    {
      config,
      schema: {
        tags: ['Reference data'],
        summary: 'Synchronise one reference dataset',
        description: `${description} Datasets: ${names('reference')}.`,
        params: Strict({ dataset: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Strict(syncQuery),
        response: { 200: PagedEnvelope(ReferenceRecord, 'reference records') },
      },
    },
    async (request) =>
      service.changesSince(
        db,
        cache,
        request.params.dataset,
        'reference',
        request.query.changedSince,
        pageOf(request.query),
      ),
  )

  app.get(
    '/classification',
    {
      config,
      schema: {
        tags: ['Reference data'],
        summary: 'Synchronise one classification',
        description: `${description} The classification is chosen with the classification parameter: ${names('classification')}.`,
        querystring: Strict({
          classification: Type.String({ minLength: 1, maxLength: 100, description: 'which classification' }),
          ...syncQuery,
        }),
        response: { 200: PagedEnvelope(ReferenceRecord, 'classification records') },
      },
    },
    async (request) =>
      service.changesSince(
        db,
        cache,
        request.query.classification,
        'classification',
        request.query.changedSince,
        pageOf(request.query),
      ),
  )
}
