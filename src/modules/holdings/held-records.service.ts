// The held dataset's content, page by page (an extension of the API, issue 19): the spec's held-data
// endpoints and reconciliation say whether a record is held and which version, never what it holds, so
// an RTO could not take its data back out (the NAT export, a new SMS taking over). Only the caller's
// RTO's records, only the latest version of each, never a voided one. Read from the read handle (the
// replica when there is one: docs/decisions.md, "Read routing (issue 21)").
import type { ReadDb, Reader } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import * as holdings from './holdings.repo.ts'
import type { HeldRecordsPage } from './holdings.schemas.ts'

export async function heldRecords(
  db: ReadDb,
  actor: Actor,
  query: { resourceType: ResourceType; after?: string; pageSize: number; resourceUID?: string[] },
): Promise<HeldRecordsPage> {
  const after = query.after?.toLowerCase()
  const uids = query.resourceUID?.map((uid) => uid.toLowerCase())
  // One row more than the page says whether there is a next page, without counting.
  const [rows, latest, count] = await Promise.all([
    holdings.heldRecordsPage(db, {
      rto: actor.rto,
      resourceType: query.resourceType,
      after,
      ...(uids === undefined ? {} : { uids }),
      limit: query.pageSize + 1,
    }),
    holdings.latestSubmissionAt(db, actor.rto),
    after === undefined ? holdings.countHeldRecords(db, actor.rto, query.resourceType, uids) : undefined,
  ])
  const page = rows.slice(0, query.pageSize)
  return {
    resourceType: query.resourceType,
    pageSize: query.pageSize,
    ...(count === undefined ? {} : { numberOfResults: count }),
    latestSubmissionAt: latest?.toISOString() ?? null,
    nextAfter: rows.length > query.pageSize ? page.at(-1)!.resource_uid : null,
    results: page.map((row) => ({
      resourceUID: row.resource_uid,
      changeTrackingIdentifier: row.change_tracking_identifier,
      submissionDateTime: new Date(row.submitted_at).toISOString(),
      jurisdiction: row.jurisdiction as HeldRecordsPage['results'][number]['jurisdiction'],
      record: row.body as Record<string, unknown>,
    })),
  }
}

/**
 * The latest held, not voided, version of each of these records of the RTO that it holds, by UID:
 * what an import carries forward (a NAT import merges a continuing enrolment's held lifecycle).
 */
export async function heldVersionsOf(
  db: Reader,
  rto: string,
  resourceType: ResourceType,
  uids: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const rows = await holdings.heldBodies(
    db,
    rto,
    resourceType,
    uids.map((uid) => uid.toLowerCase()),
  )
  return new Map(rows.map((row) => [row.resource_uid, row.body as Record<string, unknown>]))
}
