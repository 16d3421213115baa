// Submitting a batch (a queued job the page waits a moment for, guarded by a NAT import's dropped lines)
// and importing NAT files into a new batch (queued too), with their progress and the NAT findings.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { Page } from '../../domain/page.ts'
import type { BatchRef } from '../batches/index.ts'
import { requestSubmit, submitStatus, type SubmitStatus } from '../holdings/index.ts'
import {
  natFindings,
  natImportOf,
  natImportStatus,
  natImportSummaryOf,
  requestNatImport,
  type NatFinding,
  type NatImportResult,
  type NatImportStatus,
} from '../nat-bridge/index.ts'
import { batchOf } from './batches.service.ts'
import { RESULTS_PAGE_SIZE, type ConsoleDependencies } from './console-shared.ts'

/**
 * Why the batch may not be submitted as asked: it was made by a NAT import that left lines out (lines
 * it could not read or map), and the form did not acknowledge their number. Names the first of them.
 */
export async function unacknowledgedNatProblems(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  acknowledged: string | undefined,
): Promise<string | undefined> {
  const nat = await natImportSummaryOf(db, actor, ref)
  const count = nat?.natProblemCount ?? 0
  if (!nat || count === 0 || acknowledged === String(count)) return undefined
  const first = nat.natProblems
    .slice(0, 3)
    .map((problem) => `${problem.nat[0]?.text ?? problem.stage}: ${problem.message}`)
    .join('; ')
  return `Not submitted: the NAT import that made this batch left out ${count} NAT ${count === 1 ? 'problem' : 'problems'} (${first}${count > 3 ? '; ...' : ''}), so the held data would lack what ${count === 1 ? 'it names' : 'they name'}. Correct the NAT files and import them again, or tick the acknowledgement and submit without ${count === 1 ? 'it' : 'them'}.`
}

/**
 * Submits as the API does, with the same conditions (a NAT import's dropped lines), as a queued job
 * (holdings' submit job): `acknowledged` is the form's acknowledgement box, passed on as the API's
 * acknowledgeDropped when it is a number. Waits up to `waitMs` for the job, so a small submit answers
 * with how it ended, as when it ran in the request; a longer one answers Queued or Running, and the
 * console goes to its status page.
 */
export async function submit(
  deps: ConsoleDependencies,
  actor: Actor,
  ref: BatchRef,
  acknowledged?: string,
  waitMs = SUBMIT_WAIT_MS,
): Promise<SubmitStatus> {
  const request = acknowledged && /^\d{1,9}$/.test(acknowledged) ? { acknowledgeDropped: Number(acknowledged) } : {}
  const submitId = await requestSubmit({ db: deps.db, queue: deps.queue, job: deps.submitJob }, actor, ref, request)
  const jurisdiction = ref.jurisdiction ?? (await batchOf(deps.db, actor, ref)).jurisdiction
  let status = await submitStatus(deps.db, actor, jurisdiction, submitId)
  for (let wait = 50, until = Date.now() + waitMs; Date.now() < until; wait = Math.min(wait * 2, 500)) {
    if (status.status === 'Submitted' || status.status === 'Failed') return status
    await new Promise((resolve) => setTimeout(resolve, wait))
    status = await submitStatus(deps.db, actor, jurisdiction, submitId)
  }
  return status
}

export type SubmitOutcome = SubmitStatus

/** How long the submit's post waits for its job before answering with the submit's status page. */
const SUBMIT_WAIT_MS = 5000

/** Where a queued submit of the RTO is (404 for another RTO's or none). */
export function submitProgress(db: Db, actor: Actor, jurisdiction: string, submitId: string) {
  return submitStatus(db, actor, jurisdiction, submitId)
}

/**
 * Queues the NAT import (the API's nat-import job), then waits a moment for it: a small set has ended
 * by then, and the page goes straight to its answer; a large one is followed on its status page.
 */
export async function importNat(
  deps: ConsoleDependencies,
  actor: Actor,
  jurisdiction: string,
  zip: Uint8Array,
  limits: { natFilesBytes: number },
  waitMs = NAT_IMPORT_WAIT_MS,
): Promise<NatImportStatus> {
  const queued = await requestNatImport(
    { db: deps.db, queue: deps.queue, job: deps.natImportJob },
    actor,
    jurisdiction,
    zip,
    { maxFilesBytes: limits.natFilesBytes },
  )
  let status = queued
  for (const until = Date.now() + waitMs; Date.now() < until; ) {
    if (status.status === 'Completed' || status.status === 'Failed') return status
    await new Promise((resolve) => setTimeout(resolve, 100))
    status = await natImportStatus(deps.db, actor, jurisdiction, queued.importId)
  }
  return status
}

/** How long the import's post waits for the import before answering with its status page. */
const NAT_IMPORT_WAIT_MS = 5000

/** Where a queued NAT import of the RTO is (404 for another RTO's or none). */
export function natImportProgress(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  importId: string,
): Promise<NatImportStatus> {
  return natImportStatus(db, actor, jurisdiction, importId)
}

/** What the NAT import that made the batch answered; 404 for a batch not made by one. */
export function natImportAnswer(db: Db, actor: Actor, ref: BatchRef): Promise<NatImportResult> {
  return natImportOf(db, actor, ref)
}

/**
 * A page of the batch's failed results, each at the NAT file, line and field it came from (the NAT
 * bridge reads the batch's zip again in a worker to place them); 404 for a batch no NAT import made.
 */
export function natFindingsPage(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  pageNumber: number,
  natFilesBytes: number,
): Promise<Page<NatFinding>> {
  return natFindings(db, actor, ref, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, { maxFilesBytes: natFilesBytes })
}
