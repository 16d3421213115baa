// SQL for console sessions (console_session, owned by the console): one row per signed-in session.
import { sql, type Generated } from 'kysely'
import type { Db } from '../../platform/db/database.ts'

export interface ConsoleSessionTable {
  session_id: string
  subject: string
  name: string
  role: string
  rto_id: string | null
  started_at: Generated<Date>
  last_seen_at: Generated<Date>
  ended_at: Date | null
  ended_by: string | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    console_session: ConsoleSessionTable
  }
}

export interface SessionRow {
  sessionId: string
  subject: string
  name: string
  role: string
  rto: string | null
  startedAt: string
  lastSeenAt: string
  endedAt: string | null
}

const rowOf = (row: {
  session_id: string
  subject: string
  name: string
  role: string
  rto_id: string | null
  started_at: Date | string
  last_seen_at: Date | string
  ended_at: Date | string | null
}): SessionRow => ({
  sessionId: row.session_id,
  subject: row.subject,
  name: row.name,
  role: row.role,
  rto: row.rto_id,
  startedAt: new Date(row.started_at).toISOString(),
  lastSeenAt: new Date(row.last_seen_at).toISOString(),
  endedAt: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
})

const COLUMNS = ['session_id', 'subject', 'name', 'role', 'rto_id', 'started_at', 'last_seen_at', 'ended_at'] as const

export async function insertSession(
  db: Db,
  row: { sessionId: string; subject: string; name: string; role: string; rto: string | undefined },
): Promise<void> {
  await db
    .insertInto('console_session')
    .values({
      session_id: row.sessionId,
      subject: row.subject,
      name: row.name,
      role: row.role,
      rto_id: row.rto ?? null,
    })
    .execute()
}

export async function findSession(db: Db, sessionId: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('console_session')
    .select(COLUMNS)
    .where('session_id', '=', sessionId)
    .executeTakeFirst()
  return row ? rowOf(row) : undefined
}

/** Notes the session was used now, unless it was within the last `withinSeconds` (one write a minute, not a page). */
export async function touchSession(db: Db, sessionId: string, withinSeconds: number): Promise<void> {
  await db
    .updateTable('console_session')
    .set({ last_seen_at: sql`now()` })
    .where('session_id', '=', sessionId)
    .where('ended_at', 'is', null)
    .where('last_seen_at', '<', sql<Date>`now() - make_interval(secs => ${withinSeconds})`)
    .execute()
}

/** Ends a session going on; true when it was going on. */
export async function endSession(db: Db, sessionId: string, endedBy: string): Promise<boolean> {
  const result = await db
    .updateTable('console_session')
    .set({ ended_at: sql`now()`, ended_by: endedBy })
    .where('session_id', '=', sessionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Sessions not ended and used within the last `idleSeconds`, most recently used first. */
export async function sessionsGoingOn(db: Db, idleSeconds: number, limit: number): Promise<SessionRow[]> {
  const rows = await db
    .selectFrom('console_session')
    .select(COLUMNS)
    .where('ended_at', 'is', null)
    .where('last_seen_at', '>=', sql<Date>`now() - make_interval(secs => ${idleSeconds})`)
    .orderBy('last_seen_at', 'desc')
    .orderBy('session_id')
    .limit(limit)
    .execute()
  return rows.map(rowOf)
}

/** Forgets sessions ended or unused for longer than `keepSeconds`. */
export async function pruneSessions(db: Db, keepSeconds: number): Promise<void> {
  await db
    .deleteFrom('console_session')
    .where((eb) =>
      eb.or([
        eb('ended_at', '<', sql<Date>`now() - make_interval(secs => ${keepSeconds})`),
        eb('last_seen_at', '<', sql<Date>`now() - make_interval(secs => ${keepSeconds})`),
      ]),
    )
    .execute()
}
