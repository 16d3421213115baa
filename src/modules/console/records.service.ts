// Held records: a record's held state, its versions with what changed between them and its related
// records, and the RTO's search of them by what people know them by.
import type { ReadDb } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { Page } from '../../domain/page.ts'
import { segmentOf, type ResourceType } from '../../domain/resource-types.ts'
import { changesBetween, type FieldChange } from './record-content.ts'
import { heldState, heldVersions, searchHeldRecords, type HeldState, type HeldVersion } from '../holdings/index.ts'
import { relatedResources, relatedStartSegments, type ReconciliationItem } from '../reconciliation/index.ts'

export interface HeldRecordView {
  state: HeldState
  /**
   * The held records related to it (the API's related-resources), newest activity first; undefined
   * for a type related-resources does not start from, or a record not in submission.
   */
  related: Page<ReconciliationItem> | undefined
  /** Its held versions, newest first (at most VERSIONS_SHOWN), each with what changed from the one before. */
  versions: (HeldVersion & { changes: FieldChange[] | undefined })[]
}

export const VERSIONS_SHOWN = 20
export const SEARCH_RESULTS_SHOWN = 50

export const RELATED_PAGE_SIZE = 20

/** A held record by type and UID: its held state (the API's GET of the record) and its related records. */
export async function heldRecordView(
  readDb: ReadDb,
  actor: Actor,
  type: ResourceType,
  uid: string,
  pageNumber: number,
): Promise<HeldRecordView> {
  const state = await heldState(readDb, actor, type, uid)
  const segment = segmentOf(type)
  const related =
    state.stateInSubmission === 'In submission' && (relatedStartSegments as readonly string[]).includes(segment)
      ? await relatedResources(readDb, actor, segment, state.resourceUID, { pageNumber, pageSize: RELATED_PAGE_SIZE })
      : undefined
  const held = await heldVersions(readDb, actor, type, uid, VERSIONS_SHOWN + 1)
  const versions = held.slice(0, VERSIONS_SHOWN).map((version, index) => ({
    ...version,
    changes: held[index + 1] ? changesBetween(held[index + 1]!.body, version.body) : undefined,
  }))
  return { state, related, versions }
}

/** The RTO's current held records found by what people know them by (holdings' search). */
export function recordSearch(readDb: ReadDb, actor: Actor, text: string): Promise<HeldVersion[]> {
  return searchHeldRecords(readDb, actor, text, SEARCH_RESULTS_SHOWN)
}
