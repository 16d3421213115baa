// Continuing students' held history: held enrolments read before a NAT import's upload, merged into its records.
import type { Db } from '../../platform/db/database.ts'
import { heldVersionsOf } from '../holdings/index.ts'
import {
  type HeldEnrolment,
  HISTORY_TYPES,
  type HistoryType,
  mergeHeldEnrolment,
  type ProgramEnrolmentRecord,
  type SubjectEnrolmentRecord,
} from './avetmiss.ts'
import type { NatSetReader } from './nat-set-reader.ts'
import type { NatSetRecord } from './nat-set.ts'

/** Held UIDs read per statement. */
const HELD_UIDS_PER_READ = 1000

/**
 * Continuing students: the held version of each program and subject enrolment the set maps that the
 * RTO holds already, by "type uid", trimmed to what the merge reads (the lifecycle, a program
 * enrolment's commencement and answers, completion and contract), so a re-import of a large set holds
 * tens of bytes a record, not its whole body.
 */
export async function heldHistory(db: Db, rto: string, set: NatSetReader): Promise<Map<string, HeldEnrolment>> {
  const held = new Map<string, HeldEnrolment>()
  // The set's UIDs come a page at a time (not held whole); each type's are read HELD_UIDS_PER_READ at a time.
  const waiting = HISTORY_TYPES.map((): string[] => [])
  const read = async (type: HistoryType, uids: string[]) => {
    for (const [uid, body] of await heldVersionsOf(db, rto, type, uids)) held.set(`${type} ${uid}`, historyOf(body))
  }
  for await (const page of set.uidsOf(HISTORY_TYPES)) {
    for (const [index, type] of HISTORY_TYPES.entries()) {
      const ofType = waiting[index]!
      ofType.push(...page[index]!)
      while (ofType.length >= HELD_UIDS_PER_READ) await read(type, ofType.splice(0, HELD_UIDS_PER_READ))
    }
  }
  for (const [index, type] of HISTORY_TYPES.entries()) if (waiting[index]!.length > 0) await read(type, waiting[index]!)
  return held
}

const HISTORY_FIELDS = [
  'lifecycle',
  'commencementDate',
  'commencingProgram',
  'fundingSourceNational',
  'studyReason',
  'programCompletion',
  'trainingContractIdentifier',
  'apprenticeshipClientIdentifier',
] as const

function historyOf(body: Record<string, unknown>): HeldEnrolment {
  const kept: Record<string, unknown> = {}
  for (const field of HISTORY_FIELDS) if (body[field] !== undefined) kept[field] = body[field]
  return kept as HeldEnrolment
}

/**
 * Each program and subject enrolment of the chunk that the RTO holds already is merged with its held
 * version (its held lifecycle states kept, a program enrolment's first commencement kept), since a
 * NAT set carries one collection period and the upload must carry the complete history (BRTS01450).
 * In place; `carried` counts the records changed.
 */
export function carryForward(
  held: Map<string, HeldEnrolment>,
  chunk: NatSetRecord[],
  carried: { count: number },
): void {
  if (held.size === 0) return
  for (const record of chunk) {
    if (record.resourceType !== 'ProgramEnrolment' && record.resourceType !== 'SubjectEnrolment') continue
    const version = held.get(`${record.resourceType} ${record.uid.toLowerCase()}`)
    if (!version) continue
    // The origin stays in the worker; findings locate with the mapping's own (docs/decisions.md).
    const merged = mergeHeldEnrolment(
      record.resourceType as HistoryType,
      record.record as ProgramEnrolmentRecord | SubjectEnrolmentRecord,
      { lines: [], fields: {} },
      version,
    )
    if (!merged.changed) continue
    record.record = merged.record
    carried.count++
  }
}
