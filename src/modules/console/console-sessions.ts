// Console sessions that can be ended before their idle timeout (issue 20). The session cookie is sealed
// (it cannot be read or forged without CONSOLE_SESSION_KEY), but a sealed cookie alone could not be
// taken back: copied before signing out, it would serve pages until it idled out. So each session has a
// row (console_session) named by a random id inside the cookie, and a page is served only while that
// row is going on: signing out ends it, and an operator can end anyone's.
import { randomBytes } from 'node:crypto'
import type { Db } from '../../platform/db/database.ts'
import type { ConsoleUser } from './console-people.ts'
import * as repo from './console-session.repo.ts'

export type { SessionRow } from './console-session.repo.ts'

/** A session's last use is written at most once a minute, not on every page. */
const TOUCH_EVERY_SECONDS = 60
/** Ended and idle sessions are forgotten after a week (the operators' page shows those going on). */
const KEEP_SECONDS = 7 * 24 * 60 * 60
/** The operators' page lists at most this many sessions, most recently used first. */
export const SESSIONS_SHOWN = 500

/** A new session for the person signing in; its id goes into the sealed cookie. */
export async function startSession(db: Db, user: ConsoleUser): Promise<string> {
  await repo.pruneSessions(db, KEEP_SECONDS)
  const sessionId = randomBytes(18).toString('base64url')
  await repo.insertSession(db, { sessionId, subject: user.subject, name: user.name, role: user.role, rto: user.rto })
  return sessionId
}

/**
 * Whether the session is going on: not ended, and used within the idle timeout (the cookie's own
 * expiry says the same; this holds when the cookie's clock is not the server's). Notes its use.
 */
export async function sessionGoingOn(db: Db, sessionId: string, idleSeconds: number): Promise<boolean> {
  const session = await repo.findSession(db, sessionId)
  if (!session || session.endedAt !== null) return false
  const idleFor = (Date.now() - Date.parse(session.lastSeenAt)) / 1000
  if (idleFor > idleSeconds + TOUCH_EVERY_SECONDS) return false
  if (idleFor > TOUCH_EVERY_SECONDS) await repo.touchSession(db, sessionId, TOUCH_EVERY_SECONDS)
  return true
}

/** Ends the session (signing out, or an operator); false when it had already ended. */
export function endSession(db: Db, sessionId: string, endedBy: string): Promise<boolean> {
  return repo.endSession(db, sessionId, endedBy)
}

/** The sessions going on (as sessionGoingOn tells them), for the operators' page. */
export function sessionsGoingOn(db: Db, idleSeconds: number): Promise<repo.SessionRow[]> {
  return repo.sessionsGoingOn(db, idleSeconds + TOUCH_EVERY_SECONDS, SESSIONS_SHOWN)
}
