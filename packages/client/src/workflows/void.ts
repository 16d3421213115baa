// Standard workflow 3 (void): check that each record is held ("In submission"), upload it again in a
// new batch with isVoided and a voidedReason, together with every record that would be left pointing
// at it (voided as orphans, or re-uploaded pointing elsewhere), validate, submit, and confirm the
// records are "Voided in submission". The service holds no record content, so the caller passes
// the full records, as its SMS holds them.
import type { VetrsOperations } from '../client.ts'
import { WorkflowError } from '../errors.ts'
import { kindOf, type ResourceRecord } from '../resources.ts'
import { eachBounded, requestOptionsOf } from './progress.ts'
import { submitRecords, type SubmitOptions, type SubmitOutcome } from './submit.ts'

export type VoidedReason = 'remove_duplicate_record' | 'remove_orphaned_record'

export interface VoidRequest {
  /** The records to void, as last submitted. */
  records: readonly ResourceRecord[]
  /** Why (default remove_duplicate_record). */
  reason?: VoidedReason
  /** Records that depend on them and go too: voided with remove_orphaned_record. */
  orphans?: readonly ResourceRecord[]
  /** Records that depend on them and stay, re-pointed elsewhere: uploaded as given. */
  repointed?: readonly ResourceRecord[]
}

export interface VoidOutcome extends SubmitOutcome {
  /** Held state of each voided record after submit (empty when validation blocked it). */
  states: { resourceType: string; resourceUID: string; stateInSubmission: string }[]
}

export async function voidRecords(
  client: VetrsOperations,
  request: VoidRequest,
  options: SubmitOptions,
): Promise<VoidOutcome> {
  const requestOptions = requestOptionsOf(options)
  const toVoid = [
    ...request.records.map((record) => voided(record, request.reason ?? 'remove_duplicate_record')),
    ...(request.orphans ?? []).map((record) => voided(record, 'remove_orphaned_record')),
  ]
  const notHeld: string[] = []
  let checked = 0
  await eachBounded(toVoid, options.concurrency ?? 4, async (record) => {
    const { resourceType, uid } = kindOf(record)
    const state = await client.heldState(resourceType, uid, requestOptions)
    if (state.stateInSubmission !== 'In submission')
      notHeld.push(`${resourceType} ${uid} is ${state.stateInSubmission}`)
    options.onProgress?.({ phase: 'check', done: ++checked, total: toVoid.length })
  })
  if (notHeld.length > 0)
    throw new WorkflowError(`only records in submission can be voided: ${notHeld.join('; ')}`, { notHeld })
  const outcome = await submitRecords(client, [...toVoid, ...(request.repointed ?? [])], options)
  if (!outcome.submitted) return { ...outcome, states: [] }
  const states = await Promise.all(
    toVoid.map(async (record) => {
      const { resourceType, uid } = kindOf(record)
      const state = await client.heldState(resourceType, uid, requestOptions)
      return { resourceType, resourceUID: uid, stateInSubmission: state.stateInSubmission }
    }),
  )
  return { ...outcome, states }
}

function voided(record: ResourceRecord, reason: VoidedReason): ResourceRecord {
  return { ...record, isVoided: true, voidedReason: reason } as ResourceRecord
}
