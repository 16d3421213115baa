// The store of idempotency keys (issue 34): one row per key of one client of one RTO, holding the
// request's fingerprint and, once answered, the answer (status, the headers that matter, the body).
// A request claims its key before doing any work; the row is "in-progress" under a short lease that
// the request renews while it runs, so a key whose process died is taken over once the lease runs
// out, never while its request is still running. The owner column names the claim, so only the
// request that claimed a key can answer or release it. Knows nothing of HTTP: platform/http's
// idempotency hook uses it, and the housekeeping job removes expired keys.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Executor } from '../db/database.ts'
import { preparedAs } from '../db/prepared-statements.ts'

declare module '../db/schema.ts' {
  interface Database {
    idempotency_key: {
      rto_id: string
      client_id: string
      idempotency_key: string
      request_hash: string
      owner: string
      state: 'in-progress' | 'answered'
      locked_until: Date
      status: number | null
      headers: Record<string, string> | null
      body: Uint8Array | null
      created_at: import('kysely').Generated<Date>
      expires_at: Date
    }
  }
}

/** Whose key it is: a key is unique per client of an RTO, and never seen by another. */
export interface KeyScope {
  rto: string
  clientId: string
  key: string
}

/** A stored answer, replayed as it was first given. */
export interface StoredAnswer {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

export type Claim =
  /** The key is this request's now: do the work, then answer() or release(). */
  | { kind: 'claimed'; owner: string }
  /** The key was used for another request (method, path or body differ). */
  | { kind: 'mismatch' }
  /** A request with this key is still running; its lease ends in retryAfterSeconds at the latest. */
  | { kind: 'in-progress'; retryAfterSeconds: number }
  /** Answered before: the answer to give again. */
  | { kind: 'answered'; answer: StoredAnswer }

export interface ClaimOptions {
  /** How long the claim holds without renewal (ms). */
  leaseMs: number
  /** How long the key and its answer are kept (ms), from the claim. */
  keepMs: number
}

/**
 * Claims the key for a request with this fingerprint, or says why not. One statement inserts the
 * claim, or takes over an expired key, or an in-progress key of the same request whose lease ran out
 * (its process died); otherwise the row as it stands decides. A row released between the two
 * statements is claimed again.
 */
export async function claimKey(
  db: Executor,
  scope: KeyScope,
  requestHash: string,
  options: ClaimOptions,
): Promise<Claim> {
  for (let round = 0; round < 3; round++) {
    const owner = randomUUID()
    // Prepared on PostgreSQL (every keyed POST runs it, uploads included).
    const claimed = await sql<{ owner: string }>`${sql.raw(preparedAs('claim_idempotency_key'))}
      INSERT INTO idempotency_key
        (rto_id, client_id, idempotency_key, request_hash, owner, state, locked_until, expires_at)
      VALUES (${scope.rto}, ${scope.clientId}, ${scope.key}, ${requestHash}, ${owner}, 'in-progress',
        now() + make_interval(secs => ${options.leaseMs / 1000}), now() + make_interval(secs => ${options.keepMs / 1000}))
      ON CONFLICT (rto_id, client_id, idempotency_key) DO UPDATE SET
        request_hash = EXCLUDED.request_hash, owner = EXCLUDED.owner, state = 'in-progress',
        locked_until = EXCLUDED.locked_until, status = NULL, headers = NULL, body = NULL,
        created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_key.expires_at <= now()
        OR (idempotency_key.state = 'in-progress' AND idempotency_key.locked_until <= now()
          AND idempotency_key.request_hash = EXCLUDED.request_hash)
      RETURNING owner`.execute(db)
    if (claimed.rows[0]?.owner === owner) return { kind: 'claimed', owner }
    const row = await sql<{
      request_hash: string
      state: 'in-progress' | 'answered'
      status: number | null
      headers: Record<string, string> | null
      body: Uint8Array | null
      lease_left_ms: number
    }>`
      SELECT request_hash, state, status, headers, body,
        greatest(0, extract(epoch FROM locked_until - now()) * 1000)::float8 AS lease_left_ms
      FROM idempotency_key
      WHERE rto_id = ${scope.rto} AND client_id = ${scope.clientId} AND idempotency_key = ${scope.key}`.execute(db)
    const found = row.rows[0]
    if (!found) continue // released (a 5xx) in between: claim it afresh
    if (found.request_hash !== requestHash) return { kind: 'mismatch' }
    if (found.state === 'in-progress')
      return { kind: 'in-progress', retryAfterSeconds: Math.max(1, Math.ceil(Number(found.lease_left_ms) / 1000)) }
    return {
      kind: 'answered',
      answer: { status: found.status ?? 200, headers: found.headers ?? {}, body: found.body ?? new Uint8Array() },
    }
  }
  // Claimed and released three times over by others in the time of one statement: say it is busy.
  return { kind: 'in-progress', retryAfterSeconds: 1 }
}

/** Renews the claim's lease while its request runs. */
export async function renewClaim(db: Executor, scope: KeyScope, owner: string, leaseMs: number): Promise<void> {
  await sql`
    UPDATE idempotency_key SET locked_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE rto_id = ${scope.rto} AND client_id = ${scope.clientId} AND idempotency_key = ${scope.key}
      AND owner = ${owner} AND state = 'in-progress'`.execute(db)
}

/** Keeps the answer of the claimed request, for the key's remaining life. */
export async function storeAnswer(db: Executor, scope: KeyScope, owner: string, answer: StoredAnswer): Promise<void> {
  await sql`${sql.raw(preparedAs('store_idempotent_answer'))}
    UPDATE idempotency_key
       SET state = 'answered', status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}::jsonb,
           body = ${answer.body}
     WHERE rto_id = ${scope.rto} AND client_id = ${scope.clientId} AND idempotency_key = ${scope.key}
       AND owner = ${owner}`.execute(db)
}

/** Gives the key up (the request failed with a 5xx or its answer cannot be kept): a retry does the work. */
export async function releaseClaim(db: Executor, scope: KeyScope, owner: string): Promise<void> {
  await db
    .deleteFrom('idempotency_key')
    .where('rto_id', '=', scope.rto)
    .where('client_id', '=', scope.clientId)
    .where('idempotency_key', '=', scope.key)
    .where('owner', '=', owner)
    .where('state', '=', 'in-progress')
    .execute()
}

/** Removes the keys whose life ended before the cutoff (the housekeeping job); how many. */
export async function deleteIdempotencyKeysExpiredBefore(db: Executor, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_key').where('expires_at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}
