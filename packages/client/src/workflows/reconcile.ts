// Reconciliation as one call: which of the SMS's records for a period the service holds, which it
// holds with another version, and which it holds that the SMS did not list. UIDs go to uid-match in
// chunks within the configured limits; the service's own list comes from search-by-period, every page.
import type { ReconciliationItem, SearchQuery, UidMatchItem, VetrsOperations } from '../client.ts'
import { sizeOf } from '../http.ts'
import { collect } from '../paging.ts'
import type { RequestOptions } from '../request-options.ts'
import { requestOptionsOf, type OnProgress } from './progress.ts'

export interface LocalRecord {
  resourceUID: string
  /** The version the SMS last submitted; compared when given. */
  changeTrackingIdentifier?: string | null
}

export interface ReconcileRequest {
  resourceType: SearchQuery['resourceType']
  /** One reporting period, {CalendarYear}{Quarter}, e.g. 202604. */
  reportingPeriod: string
  records: readonly LocalRecord[]
}

export interface ReconcileOutcome {
  /** Held for the period with the version the SMS has (or no version given). */
  matched: UidMatchItem[]
  /** Held for the period, but with another changeTrackingIdentifier: resubmit or investigate. */
  versionDiffers: { local: LocalRecord; held: UidMatchItem }[]
  /** Not held for the period (never submitted, voided, or dated in another period). */
  notHeld: UidMatchItem[]
  /** Held for the period but not in the SMS's list. */
  heldOnly: ReconciliationItem[]
}

export interface ReconcileOptions extends RequestOptions {
  onProgress?: OnProgress
}

export async function reconcile(
  client: VetrsOperations,
  request: ReconcileRequest,
  options: ReconcileOptions = {},
): Promise<ReconcileOutcome> {
  const { resourceType, reportingPeriod } = request
  const requestOptions = requestOptionsOf(options)
  const chunks = await chunkUids(
    client,
    request.records.map((r) => r.resourceUID),
    (resourceUIDs) => ({ resourceType, reportingPeriod, resourceUIDs }),
  )
  const matches: UidMatchItem[] = []
  for (const resourceUIDs of chunks) {
    matches.push(...(await client.uidMatch({ resourceType, reportingPeriod, resourceUIDs }, requestOptions)).results)
    options.onProgress?.({ phase: 'check', done: matches.length, total: request.records.length })
  }
  const local = new Map(request.records.map((r) => [r.resourceUID.toLowerCase(), r]))
  const outcome: ReconcileOutcome = { matched: [], versionDiffers: [], notHeld: [], heldOnly: [] }
  for (const held of matches) {
    const mine = local.get(held.resourceUID.toLowerCase())!
    if (!held.resourceInSubmission) outcome.notHeld.push(held)
    else if (
      mine.changeTrackingIdentifier !== undefined &&
      mine.changeTrackingIdentifier !== held.changeTrackingIdentifier
    )
      outcome.versionDiffers.push({ local: mine, held })
    else outcome.matched.push(held)
  }
  const all = await collect(
    client.searchByPeriod({ resourceType, reportingPeriods: [reportingPeriod] }, requestOptions),
  )
  outcome.heldOnly = all.filter((item) => !local.has(item.resourceUID.toLowerCase()))
  return outcome
}

/** Splits UIDs so each request stays within uidsPerRequest and both body size limits. */
export async function chunkUids<Body>(
  client: VetrsOperations,
  uids: readonly string[],
  bodyOf: (uids: string[]) => Body,
): Promise<string[][]> {
  const { uidsPerRequest, compressedBytes, decompressedBytes } = client.limits
  const chunks: string[][] = []
  let rest = [...uids]
  while (rest.length > 0) {
    let size = Math.min(uidsPerRequest, rest.length)
    for (;;) {
      const [plain, compressed] = await sizeOf(bodyOf(rest.slice(0, size)))
      if ((plain <= decompressedBytes && compressed <= compressedBytes) || size === 1) break
      size = Math.max(1, Math.floor(size / 2))
    }
    chunks.push(rest.slice(0, size))
    rest = rest.slice(size)
  }
  return chunks
}
