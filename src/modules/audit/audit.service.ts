// The audit trail's use cases: write an entry, search and export entries, verify days' chains, remove
// the days past retention. No HTTP here: the HTTP layer's audit hook (platform/http/audit-hook.ts)
// turns an audited request into an AuditEntryInput, and app.ts hands it recordAudit.
import { randomUUID } from 'node:crypto'
import type { AuditEntryInput } from '../../domain/audit.ts'
import type { Executor, Tx } from '../../platform/db/database.ts'
import { canonicalText, type ChainBreak, DayChainCheck, daySeed, type StoredAuditEntry } from './audit-chain.ts'
import * as repo from './audit.repo.ts'

export type { AuditCursor, AuditFilter } from './audit.repo.ts'

/** Bounds of what an entry keeps (longer values are cut): identifiers, never free text. */
const BOUNDS = {
  actorId: 200,
  actorRole: 50,
  sourceAddress: 100,
  recordType: 50,
  recordId: 100,
  batchToken: 100,
  rto: 20,
  requestId: 100,
} as const

const clip = (value: string | null, bound: number) => (value === null ? null : value.slice(0, bound))

/** Appends an entry to today's chain (UTC); in the caller's transaction when given one. */
export async function recordAudit(
  db: Executor,
  input: AuditEntryInput,
  at: Date = new Date(),
): Promise<{ day: string; seq: number; hash: string }> {
  const entry: repo.EntryToInsert = {
    id: randomUUID(),
    at,
    day: at.toISOString().slice(0, 10),
    actorKind: input.actorKind,
    actorId: clip(input.actorId, BOUNDS.actorId)!,
    actorRole: clip(input.actorRole, BOUNDS.actorRole),
    sourceAddress: clip(input.sourceAddress, BOUNDS.sourceAddress),
    action: input.action,
    recordType: clip(input.recordType, BOUNDS.recordType),
    recordId: clip(input.recordId, BOUNDS.recordId),
    batchToken: clip(input.batchToken, BOUNDS.batchToken),
    rto: clip(input.rto, BOUNDS.rto),
    outcome: input.outcome,
    status: input.status,
    requestId: clip(input.requestId, BOUNDS.requestId),
  }
  const { seq, hash } = await repo.insertEntry(db, entry, daySeed(entry.day), canonicalText(entry))
  return { day: entry.day, seq: Number(seq), hash }
}

/** At most this many entries on a search page; an export takes at most EXPORT_MAX_ENTRIES. */
export const AUDIT_PAGE_SIZE = 50
export const EXPORT_MAX_ENTRIES = 100_000

export interface AuditPage {
  entries: StoredAuditEntry[]
  /** Where the next (older) page starts, or undefined on the last page. */
  next: repo.AuditCursor | undefined
}

/**
 * A page of entries matching the filter, newest first. Unscoped: the caller decides whose entries a
 * person may see (the console gives an RTO's authorised person a filter with their RTO, always).
 */
export async function searchAudit(
  db: Executor,
  filter: repo.AuditFilter,
  before?: repo.AuditCursor,
  pageSize: number = AUDIT_PAGE_SIZE,
): Promise<AuditPage> {
  const size = Math.min(Math.max(1, pageSize), 500)
  const rows = await repo.searchEntries(db, filter, before, size + 1)
  const entries = rows.slice(0, size)
  const last = entries.at(-1)
  return { entries, next: rows.length > size && last ? { day: last.day, seq: last.seq } : undefined }
}

/** Every entry matching the filter, newest first, a page at a time, at most EXPORT_MAX_ENTRIES. */
export async function* exportAudit(db: Executor, filter: repo.AuditFilter): AsyncGenerator<StoredAuditEntry> {
  let before: repo.AuditCursor | undefined
  let given = 0
  while (given < EXPORT_MAX_ENTRIES) {
    const page = await searchAudit(db, filter, before, Math.min(500, EXPORT_MAX_ENTRIES - given))
    for (const entry of page.entries) yield entry
    given += page.entries.length
    if (!page.next) return
    before = page.next
  }
}

export const AUDIT_CSV_COLUMNS = [
  'day',
  'seq',
  'id',
  'at',
  'actor_kind',
  'actor_id',
  'actor_role',
  'source_address',
  'action',
  'record_type',
  'record_id',
  'batch_token',
  'rto',
  'outcome',
  'status',
  'request_id',
  'hash',
] as const

/** One CSV field: quoted when it holds a comma, quote or line break; a leading formula character defused. */
function csvField(value: string | number | null): string {
  if (value === null) return ''
  let text = String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The export as CSV lines (header first), each ending with CRLF. */
export async function* auditCsv(db: Executor, filter: repo.AuditFilter): AsyncGenerator<string> {
  yield `${AUDIT_CSV_COLUMNS.join(',')}\r\n`
  for await (const e of exportAudit(db, filter)) {
    const fields = [
      e.day,
      e.seq,
      e.id,
      e.at.toISOString(),
      e.actorKind,
      e.actorId,
      e.actorRole,
      e.sourceAddress,
      e.action,
      e.recordType,
      e.recordId,
      e.batchToken,
      e.rto,
      e.outcome,
      e.status,
      e.requestId,
      e.hash,
    ]
    yield `${fields.map(csvField).join(',')}\r\n`
  }
}

export interface DayVerification {
  day: string
  entries: number
  broken: ChainBreak | undefined
}

const VERIFY_PAGE = 5000

/** Recomputes each day's chain from `from` to `to` (inclusive, YYYY-MM-DD); a day per answer. */
export async function verifyAudit(db: Executor, from: string, to: string): Promise<DayVerification[]> {
  const days = await repo.daysBetween(db, from, to)
  const answers: DayVerification[] = []
  for (const { day, lastSeq, lastHash } of days) {
    const check = new DayChainCheck(day)
    let after = 0
    for (;;) {
      const page = await repo.entriesOfDay(db, day, after, VERIFY_PAGE)
      check.add(page)
      if (page.length < VERIFY_PAGE || check.broken) break
      after = page.at(-1)!.seq
    }
    const head = lastSeq === null || lastHash === null ? undefined : { lastSeq, lastHash }
    answers.push({ day, entries: check.count, broken: check.finish(head) })
  }
  return answers
}

/** The first day kept when entries are kept `retentionDays` days (today counts as one). */
export function firstDayKept(retentionDays: number, now: Date = new Date()): string {
  return new Date(now.getTime() - (retentionDays - 1) * 86_400_000).toISOString().slice(0, 10)
}

/** Removes whole days older than the retention (in the housekeeping's transaction); days removed. */
export async function removeExpiredAuditDays(tx: Tx, retentionDays: number, now: Date = new Date()): Promise<number> {
  return repo.deleteDaysBefore(tx, firstDayKept(retentionDays, now))
}
