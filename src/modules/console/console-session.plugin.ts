// The console's session plugin: sealed-cookie sessions with an idle timeout, a CSRF token on every form,
// and a session served only while its row in console_session is going on. It adds the person slots to
// the request that the pages' preHandlers (page-kit.ts, `only.*`) fill by role. Installed on the
// console's own instance (not a child plugin), so every area of pages registered after it shares it.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import secureSession from '@fastify/secure-session'
import csrfProtection from '@fastify/csrf-protection'
import type { ConsoleConfig } from '../../config/config.ts'
import type { Db } from '../../platform/db/database.ts'
import type { ConsoleUser } from './console-people.ts'
import type { PendingSignIn } from './console-sign-in.ts'
import type { Flash } from './console.views.ts'
import * as sessions from './console-sessions.ts'
import { CONSOLE_PREFIX } from './page-kit.ts'

declare module '@fastify/secure-session' {
  interface SessionData {
    user: ConsoleUser
    /** The session's row in console_session: pages are served only while it is going on. */
    sessionId: string
    idToken: string
    pending: PendingSignIn
    flash: Flash
  }
}

export async function installConsoleSession(
  app: FastifyInstance,
  options: { db: Db; settings: ConsoleConfig; secure: boolean },
): Promise<void> {
  const { db, settings, secure } = options
  await app.register(secureSession, {
    key: settings.sessionKey ?? randomBytes(32),
    cookieName: 'vetrs_console',
    expiry: settings.sessionIdleSeconds,
    cookie: { path: CONSOLE_PREFIX, httpOnly: true, sameSite: 'lax', secure, maxAge: settings.sessionIdleSeconds },
  })
  await app.register(csrfProtection, { sessionPlugin: '@fastify/secure-session' })
  app.decorateRequest('consolePerson', null)
  app.decorateRequest('rtoPerson', null)

  // A signed-in session is served only while its row is going on (console-sessions.ts): one read by
  // primary key per page. The stylesheet and scripts, and the identity provider's pages, need none.
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith(`${CONSOLE_PREFIX}/assets/`) || request.url.startsWith(`${CONSOLE_PREFIX}/idp`)) return
    if (!request.session.get('user')) return
    const sessionId = request.session.get('sessionId')
    if (!sessionId || !(await sessions.sessionGoingOn(db, sessionId, settings.sessionIdleSeconds))) {
      request.session.regenerate() // nothing of it is read by this request (delete alone keeps it readable)
      request.session.delete() // and the cookie is cleared in the answer
    }
  })
}
