// The hash chains of a day's audit entries: what an entry's hash covers, and how a chain is checked.
// A day has up to AUDIT_LANES chains ("lanes", migration 0042), each numbered from 1 and chained from
// its own fixed seed. Written by the database in the statement that inserts the entry (audit.repo.ts
// and audit_append compute the same hash in SQL: sha256 of the previous hash, the entry's number and
// its canonical text, joined by newlines), recomputed here by the verification.
import { createHash } from 'node:crypto'
import type { AuditEntryInput } from '../../domain/audit.ts'

/** An entry as stored: the input, with its identity, time and place in the chain. */
export interface StoredAuditEntry extends AuditEntryInput {
  day: string
  /** The day's chain it is in (the writer's connection's, audit_lane()). */
  lane: number
  /** Its number in the lane's chain. */
  seq: number
  /** Where it stands in the console's order (one sequence for all lanes); not hashed. */
  pos: number
  id: string
  at: Date
  prevHash: string
  hash: string
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/** How many lanes a day may have: audit_lane() is pg_backend_pid() % 16 (migration 0042). */
export const AUDIT_LANES = 16

/** The day's seed, given to the SQL, which makes each lane's from it (audit_lane_seed). */
export const daySeed = (day: string) => sha256(`vetrs-audit-day:${day}`)

/**
 * The hash a lane's first entry chains from: fixed, so a removed first entry is seen too. Lane 0's is
 * the day's seed (the one chain a day had before lanes, which so verifies unchanged).
 */
export const laneSeed = (day: string, lane: number) =>
  lane === 0 ? daySeed(day) : sha256(`${daySeed(day)}:lane:${lane}`)

/**
 * The canonical text of an entry: its fields in a fixed order as a JSON array (strings escaped one
 * way, null for absent). Everything stored is in it but the chain columns themselves.
 */
export function canonicalText(entry: UnchainedEntry): string {
  return JSON.stringify(canonicalFields(entry))
}

/** An entry before a chain gives it its place (the lane, number, position and hashes are not in its text). */
export type UnchainedEntry = Omit<StoredAuditEntry, 'lane' | 'seq' | 'pos' | 'prevHash' | 'hash'>

/** Where the status stands among the canonical fields. */
const STATUS_FIELD = 13

/**
 * The canonical text around the status, for an entry whose status the writing statement decides
 * (audit_append, migration 0040): head + the status as a JSON number + tail is canonicalText.
 */
export function canonicalAroundStatus(entry: UnchainedEntry): {
  head: string
  tail: string
} {
  const fields = canonicalFields(entry)
  const before = JSON.stringify(fields.slice(0, STATUS_FIELD))
  const after = JSON.stringify(fields.slice(STATUS_FIELD + 1))
  return { head: `${before.slice(0, -1)},`, tail: `,${after.slice(1)}` }
}

function canonicalFields(entry: UnchainedEntry): unknown[] {
  return [
    entry.id,
    entry.at.toISOString(),
    entry.day,
    entry.actorKind,
    entry.actorId,
    entry.actorRole,
    entry.sourceAddress,
    entry.action,
    entry.recordType,
    entry.recordId,
    entry.batchToken,
    entry.rto,
    entry.outcome,
    entry.status,
    entry.requestId,
  ]
}

/** The hash of the entry numbered seq after prevHash (the same as the insert's SQL). */
export const chainHash = (prevHash: string, seq: number, canonical: string) =>
  sha256(`${prevHash}\n${seq}\n${canonical}`)

/** Where a lane's chain is broken, for the first break found. */
export interface ChainBreak {
  day: string
  lane: number
  /** The entry number where the chain breaks. */
  seq: number
  id: string | null
  problem: 'edited' | 'missing' | 'out-of-chain' | 'head-mismatch'
  detail: string
}

/** Checks a lane's entries in number order, page by page; the first break, or undefined if none. */
export class LaneChainCheck {
  #expectedSeq = 1
  #prev: string
  readonly day: string
  readonly lane: number
  count = 0
  broken: ChainBreak | undefined

  constructor(day: string, lane: number) {
    this.day = day
    this.lane = lane
    this.#prev = laneSeed(day, lane)
  }

  /** Takes the next entries (in seq order); stops looking once broken. */
  add(entries: readonly StoredAuditEntry[]): void {
    for (const entry of entries) {
      if (this.broken) return
      this.count++
      if (entry.seq !== this.#expectedSeq) {
        this.broken = {
          day: this.day,
          lane: this.lane,
          seq: this.#expectedSeq,
          id: null,
          problem: 'missing',
          detail: `entry #${this.#expectedSeq}${entry.seq > this.#expectedSeq + 1 ? ` to #${entry.seq - 1}` : ''} removed (the next entry is #${entry.seq}, id ${entry.id})`,
        }
        return
      }
      if (entry.prevHash !== this.#prev) {
        this.broken = {
          day: this.day,
          lane: this.lane,
          seq: entry.seq,
          id: entry.id,
          problem: 'out-of-chain',
          detail: `entry #${entry.seq} (id ${entry.id}) does not follow the entry before it (its previous hash differs)`,
        }
        return
      }
      const recomputed = chainHash(this.#prev, entry.seq, canonicalText(entry))
      if (recomputed !== entry.hash) {
        this.broken = {
          day: this.day,
          lane: this.lane,
          seq: entry.seq,
          id: entry.id,
          problem: 'edited',
          detail: `entry #${entry.seq} (id ${entry.id}) was changed after it was written (its content does not give its hash)`,
        }
        return
      }
      this.#prev = entry.hash
      this.#expectedSeq++
    }
  }

  /** Ends the check against the lane's head (last number and hash), which catches removed last entries. */
  finish(head: { lastSeq: number; lastHash: string } | undefined): ChainBreak | undefined {
    if (this.broken) return this.broken
    const lastSeq = this.#expectedSeq - 1
    if (!head) {
      if (lastSeq > 0)
        this.broken = {
          day: this.day,
          lane: this.lane,
          seq: lastSeq,
          id: null,
          problem: 'head-mismatch',
          detail: `the lane has ${lastSeq} entries but no head: its head row was removed`,
        }
      return this.broken
    }
    if (head.lastSeq !== lastSeq || head.lastHash !== this.#prev)
      this.broken = {
        day: this.day,
        lane: this.lane,
        seq: lastSeq + 1,
        id: null,
        problem: head.lastSeq > lastSeq ? 'missing' : 'head-mismatch',
        detail:
          head.lastSeq > lastSeq
            ? `entr${head.lastSeq - lastSeq === 1 ? `y #${head.lastSeq}` : `ies #${lastSeq + 1} to #${head.lastSeq}`} removed (the lane's head says ${head.lastSeq} entries were written, ${lastSeq} are there)`
            : `the lane's head (#${head.lastSeq}) does not match its last entry (#${lastSeq})`,
      }
    return this.broken
  }
}
