// What every group of console pages is given by consoleRoutes: who is signed in (and whether they may
// see a page), the frame a page is drawn in, and how an HTML answer is sent. Lets a group of pages live
// in a file of its own without a second copy of the session and role checks.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ConsoleUser } from './console-people.ts'
import type { PageFrame } from './console.views.ts'

export interface PageKit {
  /** Anyone signed in; otherwise redirected to the sign-in and undefined. */
  requireSignedIn(request: FastifyRequest, reply: FastifyReply): ConsoleUser | undefined
  /** The signed-in operator; otherwise the sign-in (signed out) or 404 (an RTO person). */
  requireOperator(request: FastifyRequest, reply: FastifyReply): { user: ConsoleUser } | undefined
  /** The frame of a page: its title, the person, the RTO whose navigation it shows, a CSRF token, a flash. */
  frameFor(request: FastifyRequest, reply: FastifyReply, user: ConsoleUser, title: string, rto?: string): PageFrame
  html(reply: FastifyReply, body: string, status?: number): FastifyReply
}

/** Route options of a console page: the session guards it (not a bearer token), hidden from OpenAPI. */
export const pageRoute = { config: { public: true }, schema: { hide: true } } as const
/** Route options of a console form: as a page, and the form's fields are the console's to check. */
export const formRoute = { config: { public: true, checksOwnBody: true }, schema: { hide: true } } as const
