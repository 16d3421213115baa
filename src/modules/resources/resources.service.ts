// Upload, read, list and delete of the eight resources inside a transaction batch. On upload only
// structure is checked (spec principle 2), by the route's schema; business rules run at validation.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { NotFoundError, StructuralError } from '../../domain/errors.ts'
import { offsetOf, toPage, type Page, type PageQuery } from '../../domain/page.ts'
import { assertOpen, batchRecords, lockOpenBatch, requireBatch, touchBatch, type BatchRef } from '../batches/index.ts'
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
  const outcome = await batchRecords.upsertRecord(db, {
    rto: actor.rto,
    token: ref.token,
    jurisdiction: ref.jurisdiction,
    resourceType: definition.resourceType,
    resourceUID,
    changeTrackingIdentifier,
    isVoided: body.isVoided === true,
    body,
    clientId: actor.clientId,
  })
  if (!outcome) assertOpen(await requireBatch(db, actor, ref)) // throws 404 or 409: the statement found no open batch
  return {
    created: outcome === 'created',
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

export async function readRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  resourceUID: string,
): Promise<unknown> {
  await requireBatch(db, actor, ref)
  const row = await batchRecords.findRecord(db, actor.rto, ref.token, definition.resourceType, resourceUID)
  if (!row) throw new NotFoundError(`No ${definition.resourceType} ${resourceUID} in transaction batch ${ref.token}.`)
  return row.body
}

export async function listRecords(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  page: PageQuery,
): Promise<Page<unknown>> {
  await requireBatch(db, actor, ref)
  const [total, results] = await Promise.all([
    batchRecords.countRecords(db, actor.rto, ref.token, definition.resourceType),
    batchRecords.listRecords(db, actor.rto, ref.token, definition.resourceType, page.pageSize, offsetOf(page)),
  ])
  return toPage(results, total, page)
}

export async function deleteRecord(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  definition: ResourceDefinition,
  resourceUID: string,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await lockOpenBatch(tx, actor, ref)
    if (!(await batchRecords.deleteRecord(tx, actor.rto, ref.token, definition.resourceType, resourceUID))) {
      throw new NotFoundError(`No ${definition.resourceType} ${resourceUID} in transaction batch ${ref.token}.`)
    }
    await touchBatch(tx, actor.rto, ref.token)
  })
}
