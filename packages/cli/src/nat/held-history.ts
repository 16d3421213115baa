// Continuing students (docs/decisions.md, "NAT imports year after year (issue 31)"): the held version
// of each program and subject enrolment the set maps, read through the SDK (the held records export,
// by UID), so that the import carries its lifecycle history forward instead of leaving out what was
// submitted in an earlier period.
import { carryForwardHeld, type HeldEnrolment, HISTORY_TYPES, type MappedRecord } from '@vetrs/avetmiss'
import type { Vetrs } from '@vetrs/client'

/** Requests in flight at once while reading held versions (each names at most 100 UIDs). */
const CONCURRENCY = 4
const UIDS_PER_REQUEST = 100

/** The records with every held enrolment merged with its held version, and how many changed. */
export async function withHeldHistory(
  client: Vetrs,
  records: readonly MappedRecord[],
  /** Whether the RTO holds any record of a type, as found by an earlier call (a chunked import asks once). */
  holds: Map<string, boolean> = new Map(),
): Promise<{ records: MappedRecord[]; carried: number }> {
  const held = new Map<string, HeldEnrolment>()
  for (const type of HISTORY_TYPES) {
    const uids = records.filter((record) => record.resourceType === type).map((record) => record.uid)
    if (uids.length === 0) continue
    if (!holds.has(type)) holds.set(type, await holdsAny(client, type))
    if (!holds.get(type)) continue
    const chunks: string[][] = []
    for (let i = 0; i < uids.length; i += UIDS_PER_REQUEST) chunks.push(uids.slice(i, i + UIDS_PER_REQUEST))
    let next = 0
    const worker = async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!
        for await (const version of client.heldRecords(type, { resourceUIDs: chunk }))
          held.set(`${type} ${version.resourceUID}`, version.record as unknown as HeldEnrolment)
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, chunks.length) }, worker))
  }
  if (held.size === 0) return { records: [...records], carried: 0 }
  return carryForwardHeld(records, held)
}

/** Whether the RTO holds any record of the type: an RTO's first import asks nothing more. */
async function holdsAny(client: Vetrs, type: (typeof HISTORY_TYPES)[number]): Promise<boolean> {
  for await (const _ of client.heldRecords(type, { pageSize: 1 })) return true
  return false
}
