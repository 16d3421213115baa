// Upload (one record, or many at once: the bulk upload), read, list and delete of the eight resources
// inside a transaction batch, whose records the batches module keeps. On upload only structure is checked (spec principle 2), by the route's schema;
// business rules run at validation.
import type { Db } from '../../platform/db/database.ts'
import type { AuditInStatement } from '../../platform/db/audit-in-statement.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { StructuralError } from '../../domain/errors.ts'
import type { Page, PageQuery } from '../../domain/page.ts'
import { resourceTypes, type ResourceType } from '../../domain/resource-types.ts'
import * as batches from '../batches/index.ts'
import type { BatchRef } from '../batches/index.ts'
import type { ResourceDefinition } from './resource.schemas.ts'
import type { UploadResult } from './upload-result.schemas.ts'

type ResourceBody = Record<string, unknown>

export async function uploadRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  body: ResourceBody,
  pathUID?: string,
  audit?: AuditInStatement,
): Promise<{ created: boolean; result: UploadResult }> {
  const resourceUID = String(body[definition.uidField])
  if (pathUID !== undefined && pathUID.toLowerCase() !== resourceUID.toLowerCase()) {
    throw new StructuralError([
      {
        accessPath: `$.${definition.uidField}`,
        message: `must equal the ${definition.uidField} in the path (${pathUID})`,
      },
    ])
  }
  const changeTrackingIdentifier =
    typeof body.changeTrackingIdentifier === 'string' ? body.changeTrackingIdentifier : null
  const created = await batches.uploadRecord(
    db,
    actor,
    ref,
    {
      resourceType: definition.resourceType,
      resourceUID,
      changeTrackingIdentifier,
      isVoided: body.isVoided === true,
      body,
    },
    audit,
  )
  return {
    created,
    result: {
      resourceType: definition.resourceType,
      resourceUID,
      changeTrackingIdentifier,
      transactionBatchToken: ref.token,
      // Upload checks structure only (a structural failure is a 400 and nothing is stored), so an
      // accepted upload has no blocking failure yet; business rules report through validation.
      hasBlockingValidationFailures: false,
      hasNonBlockingValidationFailures: false,
    },
  }
}

/** The answer to a bulk upload: what the same uploads one by one would have answered, added up. */
export interface BulkUploadResult {
  transactionBatchToken: string
  recordCount: number
  created: number
  replaced: number
  /** Every resource type, zeros included, in the spec's order. */
  byResourceType: Record<ResourceType, { created: number; replaced: number }>
  hasBlockingValidationFailures: boolean
  hasNonBlockingValidationFailures: boolean
}

/** A record of a bulk upload, checked against its resource's schema like any upload. */
export interface CheckedRecord {
  definition: ResourceDefinition
  body: ResourceBody
}

/**
 * Creates or replaces every record, in order, in one transaction: the outcome of uploading each in
 * turn, except that nothing is stored when any part fails (an error from the chunks, such as refused
 * lines; 404 or 409 as for one upload). The chunks are written as they come.
 */
export async function uploadRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  chunks: AsyncIterable<readonly CheckedRecord[]>,
): Promise<BulkUploadResult> {
  const types: ResourceType[] = []
  async function* uploads(): AsyncGenerator<batches.RecordToUpload[]> {
    for await (const chunk of chunks) {
      yield chunk.map(({ definition, body }) => {
        types.push(definition.resourceType)
        return {
          resourceType: definition.resourceType,
          resourceUID: String(body[definition.uidField]),
          changeTrackingIdentifier:
            typeof body.changeTrackingIdentifier === 'string' ? body.changeTrackingIdentifier : null,
          isVoided: body.isVoided === true,
          body,
        }
      })
    }
  }
  const outcomes = await batches.uploadRecords(db, actor, ref, uploads())
  const byResourceType = Object.fromEntries(resourceTypes.map((type) => [type, { created: 0, replaced: 0 }])) as Record<
    ResourceType,
    { created: number; replaced: number }
  >
  outcomes.forEach((outcome, index) => {
    byResourceType[types[index]!][outcome]++
  })
  const created = outcomes.filter((outcome) => outcome === 'created').length
  return {
    transactionBatchToken: ref.token,
    recordCount: outcomes.length,
    created,
    replaced: outcomes.length - created,
    byResourceType,
    // As for one upload: structure only is checked here, and a structural failure refuses the request.
    hasBlockingValidationFailures: false,
    hasNonBlockingValidationFailures: false,
  }
}

export function readRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  resourceUID: string,
): Promise<unknown> {
  return batches.readRecord(db, actor, ref, definition.resourceType, resourceUID)
}

export function listRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  page: PageQuery,
): Promise<Page<unknown>> {
  return batches.listRecords(db, actor, ref, definition.resourceType, page)
}

export function deleteRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  resourceUID: string,
): Promise<void> {
  return batches.deleteRecord(db, actor, ref, definition.resourceType, resourceUID)
}
