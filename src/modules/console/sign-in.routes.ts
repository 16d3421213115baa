// Signing in and out: the console's front door (the sign-in page, or where a signed-in person starts),
// the OpenID Connect round trip to the identity provider and back, and signing out there too.
import type { FastifyPluginAsync } from 'fastify'
import type { Db } from '../../platform/db/database.ts'
import { type RelyingParty, SignInRefused } from './console-sign-in.ts'
import { renderPage } from './console.views.ts'
import * as operatorService from './operator.service.ts'
import * as sessions from './console-sessions.ts'
import { readInput, RecordSearchQuery } from './console-input.ts'
import { CONSOLE_PREFIX, formRoute, frameFor, html, pageRoute } from './page-kit.ts'

export interface SignInOptions {
  db: Db
  relyingParty: RelyingParty
  publicBaseUrl: string
  /** Whether the built-in demonstration identity provider is in use (the sign-in page names its people). */
  demoProvider: boolean
}

export const signInPages: FastifyPluginAsync<SignInOptions> = async (app, options) => {
  const { db, relyingParty, publicBaseUrl } = options

  app.get('/', pageRoute, async (request, reply) => {
    const user = request.session.get('user')
    if (!user)
      return html(reply, renderPage('signed-out-home', { title: 'Sign in' }, { demoProvider: options.demoProvider }))
    request.session.touch()
    if (user.rto) return reply.redirect(`${CONSOLE_PREFIX}/rto/${encodeURIComponent(user.rto)}/`, 303)
    const query = readInput(RecordSearchQuery, request.query)
    const search = query.q ?? ''
    const page = await operatorService.rtoDirectory(db, search, query.page ?? 1)
    const frame = frameFor(request, reply, user, search ? `RTOs matching ${search}` : 'RTOs')
    return html(reply, renderPage('rtos', { ...frame, current: 'rtos' }, { page, search }))
  })

  app.get('/sign-in', pageRoute, async (request, reply) => {
    const { url, pending } = await relyingParty.begin()
    request.session.set('pending', pending)
    return reply.redirect(url, 303)
  })

  app.get('/callback', pageRoute, async (request, reply) => {
    const pending = request.session.get('pending')
    if (!pending) return reply.redirect(`${CONSOLE_PREFIX}/`, 303) // a stale or repeated callback: start again
    request.session.set('pending', undefined)
    try {
      const { user, idToken } = await relyingParty.finish(new URL(request.url, publicBaseUrl), pending)
      request.session.regenerate() // a new session for the person: nothing from before signing in carries over
      request.session.set('user', user)
      request.session.set('sessionId', await sessions.startSession(db, user))
      if (idToken) request.session.set('idToken', idToken)
      return reply.redirect(`${CONSOLE_PREFIX}/`, 303)
    } catch (error) {
      request.log.warn({ err: error }, 'console sign-in refused')
      const message = error instanceof SignInRefused ? error.message : 'Signing in did not complete. Please try again.'
      return html(reply, renderPage('error', { title: 'Signing in failed' }, { message, signIn: true }), 403)
    }
  })

  app.post('/sign-out', { ...formRoute, preHandler: app.csrfProtection }, async (request, reply) => {
    const idToken = request.session.get('idToken')
    const sessionId = request.session.get('sessionId')
    if (sessionId) await sessions.endSession(db, sessionId, 'signed out')
    request.session.delete()
    const endSession = await relyingParty.signOutUrl(idToken)
    return reply.redirect(endSession ?? `${CONSOLE_PREFIX}/signed-out`, 303)
  })

  app.get('/signed-out', pageRoute, async (_request, reply) =>
    html(reply, renderPage('signed-out', { title: 'Signed out' }, { demoProvider: false })),
  )
}
