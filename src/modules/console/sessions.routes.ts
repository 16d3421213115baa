// Operators see who is signed in to the console and can end a session before its idle timeout (a
// person who left, a lost laptop): its next page asks them to sign in again. Ending one's own session
// is signing out.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../platform/db/database.ts'
import { renderPage } from './console.views.ts'
import * as sessions from './console-sessions.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

export function sessionPages(app: FastifyInstance, db: Db, idleSeconds: number): void {
  app.get('/sessions', { ...pageRoute, preHandler: only.operators }, async (request, reply) => {
    const operator = { user: personOf(request) }
    const going = await sessions.sessionsGoingOn(db, idleSeconds)
    const frame = frameFor(request, reply, operator.user, 'Console sessions')
    return html(
      reply,
      renderPage(
        'sessions',
        { ...frame, current: 'sessions' },
        { sessions: going, own: request.session.get('sessionId'), shown: sessions.SESSIONS_SHOWN, idleSeconds },
      ),
    )
  })

  app.post<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId/end',
    audited({ ...formRoute, preHandler: [app.csrfProtection, only.operators] }, 'session.end'),
    async (request, reply) => {
      const operator = { user: personOf(request) }
      const { sessionId } = request.params
      const ended = await sessions.endSession(db, sessionId, `operator ${operator.user.subject}`)
      // Never the session id in a log line: with the sealing key it would name a live cookie's row.
      request.log.info({ by: operator.user.subject, ended }, 'console: session ended by an operator')
      if (sessionId === request.session.get('sessionId')) {
        request.session.delete()
        return reply.redirect('/console/signed-out', 303)
      }
      request.session.set('flash', {
        kind: ended ? 'success' : 'error',
        text: ended
          ? 'The session is ended: its next page asks the person to sign in again.'
          : 'That session had already ended.',
      })
      return reply.redirect('/console/sessions', 303)
    },
  )
}
