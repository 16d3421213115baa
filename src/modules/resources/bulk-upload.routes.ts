// The bulk upload, an extension of the batch API that the specification does not have (issue 19):
// POST .../transaction-batch/{token}/records with an NDJSON body (application/x-ndjson), one line
// per record, {"resourceType": "Student", "record": {...}}. Every line is checked exactly as the single
// upload's body is (the same schema, string rules and null handling, through the same structural
// check); when every line passes, all are stored in one transaction with the outcome of uploading
// them one by one in order; when any line is refused, nothing is stored and one 400 lists the refused
// lines. docs/decisions.md, "Bulk ingestion (issue 19)".
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { installNdjsonParser, NDJSON, parseJsonText, type NdjsonBody } from '../../platform/http/body-parsers.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { createStructuralCheck, type StructuralCheck } from '../../platform/schema/structural-check.ts'
import { named } from '../../platform/http/schema-names.ts'
import { childPath } from '../../platform/schema/strings.ts'
import { Jurisdiction, StringEnum, Strict } from '../../platform/http/types.ts'
import { DomainError, RefusedLinesError, StructuralError, type LineFailure } from '../../domain/errors.ts'
import { resourceTypes, type ResourceType } from '../../domain/resource-types.ts'
import type { ResourceDefinition } from './resource.schemas.ts'
import * as service from './resources.service.ts'

/** Refused lines listed in one problem; refusedLineCount counts them all. */
export const LISTED_REFUSED_LINES = 100
/** Lines checked between two turns of the event loop, so a large body does not hold up other requests. */
const LINES_PER_TURN = 250
/** Records per chunk: each is stored while the next is checked. */
const CHUNK_LINES = 500

const LineResourceType = StringEnum(resourceTypes, {
  description: "the record's resource type, as in every other resourceType field of the API (Student, not student)",
})

const Counts = named(
  'BulkUploadCounts',
  Type.Object(
    { created: Type.Integer({ minimum: 0 }), replaced: Type.Integer({ minimum: 0 }) },
    { description: 'lines of one resource type that created a record in the batch, and lines that replaced one' },
  ),
)

const BulkUploadResult = named(
  'BulkUploadResult',
  Type.Object(
    {
      transactionBatchToken: Type.String(),
      recordCount: Type.Integer({ minimum: 1, description: 'lines (records) in the request, all stored' }),
      created: Type.Integer({
        minimum: 0,
        description: 'lines whose single upload would have answered 201: the record was not in the batch',
      }),
      replaced: Type.Integer({
        minimum: 0,
        description:
          'lines whose single upload would have answered 200: the record was in the batch already, or an earlier line of the request named it',
      }),
      byResourceType: Type.Object(
        Object.fromEntries(resourceTypes.map((type) => [type, Counts])) as Record<ResourceType, typeof Counts>,
        { additionalProperties: false, description: 'created and replaced per resource type, every type listed' },
      ),
      hasBlockingValidationFailures: Type.Boolean({
        description: 'false: as for a single upload, only structure is checked, and a structural failure is a 400',
      }),
      hasNonBlockingValidationFailures: Type.Boolean(),
    },
    { description: 'every line stored, in one transaction, as if uploaded one by one in order' },
  ),
)

const batchParams = Strict({
  jurisdiction: Jurisdiction,
  transactionBatchToken: Type.String({ minLength: 1, maxLength: 100 }),
})

/**
 * The bulk upload route, on the resource schemas the single uploads use (their published copies, so
 * the document refers to the same components).
 */
export const bulkUploadRoutes: FastifyPluginAsyncTypebox<{
  db: Db
  definitions: readonly ResourceDefinition[]
  maxRecords: number
}> = async (app, { db, definitions, maxRecords }) => {
  // This plugin's only body type: JSON or anything else is 415 here, and NDJSON 415 everywhere else.
  installNdjsonParser(app, { maxLines: maxRecords })
  const check = createStructuralCheck()
  const definitionOf = new Map(definitions.map((definition) => [definition.resourceType, definition]))

  // Documents the lines; the route checks them itself (config.checksOwnBody), line by line.
  const BulkUploadLine = named(
    'BulkUploadLine',
    Type.Union(
      definitions.map(({ resourceType, schema }) =>
        Strict({ resourceType: Type.Literal(resourceType), record: schema }),
      ),
      {
        description:
          'One line of the NDJSON body: {"resourceType": "<Student, DeliveryLocation, ...>", "record": <the record, exactly as the single upload of that type takes it>}',
      },
    ),
  )

  app.post(
    '/:jurisdiction/transaction-batch/:transactionBatchToken/records',
    {
      config: { scope: Scopes.report, checksOwnBody: true, audit: 'record.bulk-upload' },
      schema: {
        tags: ['Resources: bulk upload (extension)'],
        summary: 'Upload many records of any types at once (extension, not in the specification)',
        description: [
          'An extension of the batch API, not part of the specification: the same as uploading each record with POST .../{segment}, in the order of the lines, but in one request and one transaction.',
          `The body is NDJSON (Content-Type: ${NDJSON}; gzip, deflate or br Content-Encoding as for any request): one JSON object per line, {"resourceType": "Student", "record": {...}}, where resourceType is the resource type name (as in every resourceType field of the API) and record is exactly the body the single upload of that type takes. Empty lines are skipped; line numbers count them.`,
          `Limits: the wire and decompressed size limits of every request (413), and at most ${maxRecords} lines (LIMIT_BULK_RECORDS; 413 /problems/too-many-records).`,
          'Each line meets exactly the structural rules of its single upload (schema, string rules, UUID v4 UIDs). If any line is refused, nothing of the request is stored, and the 400 problem lists the refused lines (the first 100) with their line number, resourceType, UID and every failure, its access path into the line ($.record.familyName).',
          "When every line passes, all are stored at once: a later line with the same resource type and UID replaces an earlier one, as N single uploads in order would. The batch rules are those of single uploads: a batch of the caller's RTO under this jurisdiction (404 otherwise), not Submitted (409), scope vet:report.",
        ].join('\n\n'),
        // The limit in force, for clients that size their requests from the document (the SDK does).
        'x-maxRecords': maxRecords,
        params: batchParams,
        consumes: [NDJSON],
        body: Type.Unsafe<NdjsonBody | undefined>(BulkUploadLine),
        response: {
          200: BulkUploadResult,
          400: problemResponse(
            'One or more lines refused: lines lists each (the first 100) with its number, resourceType, UID and failures, refusedLineCount counts them all. Or an empty body, or a path parameter refused (errors). Nothing was stored.',
          ),
          409: problemResponse('The batch is Submitted (reason batch-submitted): its records can no longer change.'),
          413: problemResponse(
            `More than ${maxRecords} lines (/problems/too-many-records), or the decompressed body above its limit (errorNumber BRTS90400). A body above the wire limit gets 413 with no body. Nothing was stored.`,
          ),
        },
      },
    },
    async (request) => {
      const { transactionBatchToken, jurisdiction } = request.params
      const ref = { token: transactionBatchToken, jurisdiction }
      return service.uploadRecords(db, actorOf(request), ref, checkedChunks(request.body, check, definitionOf))
    },
  )
}

/**
 * Every line checked as its single upload's body, in chunks of CHUNK_LINES records that are stored
 * while the next chunk is checked. Once a line is refused nothing more is yielded, every line is still
 * checked (to list and count the refusals), and RefusedLinesError ends it: the transaction rolls back.
 */
async function* checkedChunks(
  body: NdjsonBody | undefined,
  check: StructuralCheck,
  definitionOf: ReadonlyMap<string, ResourceDefinition>,
): AsyncGenerator<service.CheckedRecord[]> {
  const lines = body?.lines ?? []
  if (lines.length === 0) {
    throw new StructuralError(
      [{ accessPath: '$', message: `must hold at least one line: send ${NDJSON}, one record per line` }],
      'The body has no lines; nothing was stored.',
    )
  }
  let chunk: service.CheckedRecord[] = []
  const refused: LineFailure[] = []
  let refusedLineCount = 0
  for (const [index, line] of lines.entries()) {
    // Lets other requests, and the statement writing the previous chunk, go ahead.
    if (index % LINES_PER_TURN === 0 && index > 0) await new Promise((resolve) => setImmediate(resolve))
    const outcome = checkLine(line.text, check, definitionOf)
    if ('record' in outcome) {
      if (refusedLineCount === 0) chunk.push(outcome.record)
    } else {
      refusedLineCount++
      chunk = []
      if (refused.length < LISTED_REFUSED_LINES) refused.push({ line: line.number, ...outcome.failure })
    }
    if (chunk.length === CHUNK_LINES) {
      yield chunk
      chunk = []
    }
  }
  if (refusedLineCount > 0) throw new RefusedLinesError(refused, refusedLineCount, lines.length)
  if (chunk.length > 0) yield chunk
}

function checkLine(
  text: string,
  check: StructuralCheck,
  definitionOf: ReadonlyMap<string, ResourceDefinition>,
): { record: service.CheckedRecord } | { failure: Omit<LineFailure, 'line'> } {
  let parsed: unknown
  try {
    parsed = parseJsonText(text)
  } catch (error) {
    const message = error instanceof DomainError ? error.message : 'The line is not valid JSON.'
    return { failure: { errors: [{ accessPath: '$', message: `is not valid JSON: ${message}` }] } }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return {
      failure: {
        errors: [{ accessPath: '$', message: 'must be a JSON object: {"resourceType": "...", "record": {...}}' }],
      },
    }
  }
  const { resourceType: rawType, record: rawRecord, ...others } = parsed as Record<string, unknown>
  const errors = Object.keys(others).map((key) => ({
    accessPath: childPath('$', key),
    message: 'is not a known property',
  }))
  // The type is an enum like any other: the string rules first (surrounding spaces trimmed), then the list.
  const type = check(LineResourceType, rawType, '$.resourceType')
  if (rawType === undefined) errors.push({ accessPath: '$.resourceType', message: 'is required' })
  else errors.push(...type.failures)
  const definition = type.failures.length === 0 ? definitionOf.get(String(type.value)) : undefined
  let uid: string | undefined
  let body: Record<string, unknown> | undefined
  if (rawRecord === undefined) errors.push({ accessPath: '$.record', message: 'is required' })
  else if (definition) {
    const record = check(definition.schema, rawRecord, '$.record')
    errors.push(...record.failures)
    if (record.value !== null && typeof record.value === 'object' && !Array.isArray(record.value)) {
      body = record.value as Record<string, unknown>
      const value = body[definition.uidField]
      uid = typeof value === 'string' ? value : undefined
    }
  }
  if (errors.length === 0 && definition && body) return { record: { definition, body } }
  return {
    failure: {
      ...(typeof rawType === 'string' ? { resourceType: rawType } : {}),
      ...(uid === undefined ? {} : { resourceUID: uid }),
      errors,
    },
  }
}
