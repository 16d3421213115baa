// Upload, read, list and delete of the eight resources inside a transaction batch, whose records the
// batches module keeps. On upload only structure is checked (spec principle 2), by the route's schema;
// business rules run at validation.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { StructuralError } from '../../domain/errors.ts'
import type { Page, PageQuery } from '../../domain/page.ts'
import * as batches from '../batches/index.ts'
import type { BatchRef } from '../batches/index.ts'
import type { ResourceDefinition } from './resource.schemas.ts'

export interface UploadResult {
  resourceType: string
  resourceUID: string
  changeTrackingIdentifier: string | null
  transactionBatchToken: string
  hasBlockingValidationFailures: boolean
  hasNonBlockingValidationFailures: boolean
}

type ResourceBody = Record<string, unknown>

export async function uploadRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  body: ResourceBody,
  pathUID?: string,
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
  const created = await batches.uploadRecord(db, actor, ref, {
    resourceType: definition.resourceType,
    resourceUID,
    changeTrackingIdentifier,
    isVoided: body.isVoided === true,
    body,
  })
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
