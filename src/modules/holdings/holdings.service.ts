// Read-only view of the held dataset: where one record stands (spec: Record presence in submission;
// Standard workflows 3 starts by confirming stateInSubmission is In submission).
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { ResourceType } from '../resources/index.ts'
import * as holdings from './holdings.repo.ts'
import type { HeldState } from './holdings.schemas.ts'

export async function heldState(db: Db, actor: Actor, resourceType: ResourceType, resourceUID: string): Promise<HeldState> {
  const [current, numberOfVersions] = await Promise.all([
    holdings.currentVersion(db, actor.rto, resourceType, resourceUID),
    holdings.countVersions(db, actor.rto, resourceType, resourceUID),
  ])
  return {
    resourceType,
    resourceUID: current?.resource_uid ?? resourceUID.toLowerCase(),
    stateInSubmission: current?.state_in_submission ?? 'Not found in submission',
    changeTrackingIdentifier: current?.change_tracking_identifier ?? null,
    submissionDateTime: current ? new Date(current.submitted_at).toISOString() : null,
    studentActivityDate: current?.student_activity_date ?? null,
    jurisdiction: (current?.jurisdiction ?? null) as HeldState['jurisdiction'],
    voidedReason: current?.voided_reason ?? null,
    numberOfVersions,
  }
}
