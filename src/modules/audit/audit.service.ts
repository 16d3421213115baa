// The audit trail's use cases: write an entry, search and export entries, verify days' chains, remove
// the days past retention. No HTTP here: the HTTP layer's audit hook (platform/http/audit-hook.ts)
// turns an audited request into an AuditEntryInput, and app.ts hands it recordAudit.
import { randomUUID } from 'node:crypto'
import type { AuditEntryInput } from '../../domain/audit.ts'
import { sql } from 'kysely'
import type { Db, Executor, Tx } from '../../platform/db/database.ts'
import type { AuditInStatement } from '../../platform/db/audit-in-statement.ts'
import {
  canonicalAroundStatus,
  canonicalText,
  chainHash,
  type ChainBreak,
  daySeed,
  LaneChainCheck,
  type StoredAuditEntry,
} from './audit-chain.ts'
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

/**
 * What an entry keeps of a text: path segments, query values and body fields are the sender's,
 * refused or not, so anything but printable ASCII is kept as a \\uXXXX escape (a NUL would make the
 * database refuse the entry, and so the answer of an audited read), then cut at its bound.
 */
const clip = (value: string | null, bound: number) =>
  value === null
    ? null
    : value.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).slice(0, bound)

function toInsert(input: AuditEntryInput, at: Date): repo.EntryToInsert {
  return {
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
}

/**
 * Appends an entry to its day's chain (UTC) on the connection's lane, in one statement; in the
 * caller's transaction when given one.
 */
export async function recordAudit(
  db: Executor,
  input: AuditEntryInput,
  at: Date = new Date(),
): Promise<{ day: string; lane: number; seq: number; hash: string }> {
  const entry = toInsert(input, at)
  const { lane, seq, hash } = await repo.insertEntry(db, entry, daySeed(entry.day), canonicalText(entry))
  return { day: entry.day, lane, seq: Number(seq), hash }
}

/**
 * The entry of a change that succeeds, as a part of the change's own statement (issue 30): the status
 * is the statement's to say (audit_append, migrations 0040 and 0042; NULL writes nothing). The same lane
 * rule, number and hash as recordAudit; one round trip fewer for the change, and no change committed without its entry.
 */
export function auditInStatement(
  input: Omit<AuditEntryInput, 'status' | 'outcome'>,
  at: Date = new Date(),
): AuditInStatement {
  const e = toInsert({ ...input, outcome: 'success', status: null }, at)
  const { head, tail } = canonicalAroundStatus(e)
  return (status) =>
    sql`audit_append(${status}, ${e.day}::date, ${daySeed(e.day)}, ${head}, ${tail}, ${e.id}::uuid, ${e.at}::timestamptz,
                     ${e.actorKind}, ${e.actorId}, ${e.actorRole}, ${e.sourceAddress}, ${e.action}, ${e.recordType},
                     ${e.recordId}, ${e.batchToken}, ${e.rto}, ${e.outcome}, ${e.requestId})`
}

/**
 * Appends several entries, in order, in one transaction: per day, the head row of the connection's
 * lane is locked once and the entries chained and inserted together, so N entries cost one lock wait
 * and one commit, not N.
 */
export async function recordAuditEntries(
  db: Db,
  inputs: readonly { input: AuditEntryInput; at: Date }[],
): Promise<Omit<StoredAuditEntry, 'pos'>[]> {
  const byDay = new Map<string, repo.EntryToInsert[]>()
  for (const { input, at } of inputs) {
    const entry = toInsert(input, at)
    const list = byDay.get(entry.day)
    if (list) list.push(entry)
    else byDay.set(entry.day, [entry])
  }
  return db.transaction().execute(async (tx) => {
    const written: Omit<StoredAuditEntry, 'pos'>[] = []
    // Days in order (one lane, the connection's): two writers of a lane lock the heads of the same days
    // in the same order, never a deadlock.
    for (const day of [...byDay.keys()].sort()) {
      const entries = byDay.get(day)!
      const chained = await repo.insertEntriesOfDay(tx, day, daySeed(day), (head) => {
        let prev = head.lastHash
        return entries.map((entry, n) => {
          const seq = head.lastSeq + n + 1
          const hash = chainHash(prev, seq, canonicalText(entry))
          const stored = { ...entry, lane: head.lane, seq, prevHash: prev, hash }
          prev = hash
          return stored
        })
      })
      written.push(...chained)
    }
    return written
  })
}

/** Writes entries as they come, gathering those that arrive while a write is under way into the next. */
export interface AuditWriter {
  /** Resolves once the entry is committed; rejects if it could not be. */
  write(input: AuditEntryInput): Promise<void>
}

/**
 * Group commit: an entry arriving while no write is under way is written at once, on its own (one
 * statement); entries arriving during a write wait for it to end and are then written together (one
 * transaction, at most `maxBatch`). Under load, the head row of its lane is then locked once per batch
 * instead of once per entry. Each entry's promise settles with its batch: a read waits for its entry.
 */
export function createAuditWriter(db: Db, options: { maxBatch?: number } = {}): AuditWriter {
  const maxBatch = options.maxBatch ?? 500
  let waiting: { input: AuditEntryInput; at: Date; done: (error?: unknown) => void }[] = []
  let writing = false

  async function drain(): Promise<void> {
    writing = true
    try {
      while (waiting.length > 0) {
        const batch = waiting.slice(0, maxBatch)
        waiting = waiting.slice(batch.length)
        try {
          if (batch.length === 1) await recordAudit(db, batch[0]!.input, batch[0]!.at)
          else await recordAuditEntries(db, batch)
          for (const entry of batch) entry.done()
        } catch (error) {
          for (const entry of batch) entry.done(error)
        }
      }
    } finally {
      writing = false
    }
  }

  return {
    write(input) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ input, at: new Date(), done: (error) => (error === undefined ? resolve() : reject(error)) })
        if (!writing) void drain()
      })
    },
  }
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
  return { entries, next: rows.length > size && last ? { day: last.day, pos: last.pos } : undefined }
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
  'lane',
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
      e.lane,
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
  /** Entries checked, every lane together (a broken lane counts those up to its break). */
  entries: number
  /** The day's lanes (chains) checked. */
  lanes: number
  /** The first break of the lowest broken lane, or undefined when every lane is intact. */
  broken: ChainBreak | undefined
  /** Every broken lane's first break, by lane. */
  brokenLanes: ChainBreak[]
}

const VERIFY_PAGE = 5000

/**
 * Recomputes every lane's chain of each day from `from` to `to` (inclusive, YYYY-MM-DD), each against
 * its head; a day per answer.
 */
export async function verifyAudit(db: Executor, from: string, to: string): Promise<DayVerification[]> {
  const lanes = await repo.lanesBetween(db, from, to)
  const answers: DayVerification[] = []
  for (const { day, lane, lastSeq, lastHash } of lanes) {
    const check = new LaneChainCheck(day, lane)
    let after = 0
    for (;;) {
      const page = await repo.entriesOfLane(db, day, lane, after, VERIFY_PAGE)
      check.add(page)
      if (page.length < VERIFY_PAGE || check.broken) break
      after = page.at(-1)!.seq
    }
    const head = lastSeq === null || lastHash === null ? undefined : { lastSeq, lastHash }
    const broken = check.finish(head)
    let answer = answers.at(-1)
    if (answer?.day !== day) {
      answer = { day, entries: 0, lanes: 0, broken: undefined, brokenLanes: [] }
      answers.push(answer)
    }
    answer.entries += check.count
    answer.lanes++
    if (broken) {
      answer.brokenLanes.push(broken)
      answer.broken ??= broken
    }
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
