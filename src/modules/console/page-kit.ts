// What every area of console pages shares: the route options of a page and of a form, the preHandlers
// that put the signed-in person on the request by role (the session plugin, console-session.plugin.ts,
// installs what they read), the frame a page is drawn in, and how an HTML answer is sent. An area's
// handler starts from a person its preHandler already checked: no session or role check is repeated.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { NotFoundError } from '../../domain/errors.ts'
import type { AuditAction } from '../../domain/audit.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { actorFor, canDeclare, canReport, type ConsoleUser, maySeeRto } from './console-people.ts'
import type { PageFrame } from './console.views.ts'

export const CONSOLE_PREFIX = '/console'

/** The person signed in for an RTO's page: who, the actor the use cases see, and the RTO. */
export interface RtoPerson {
  user: ConsoleUser
  actor: Actor
  rto: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person, put there by a console page's preHandler (null before, or on other routes). */
    consolePerson: ConsoleUser | null
    /** The person for the RTO of the page's path, put there by the RTO pages' preHandlers. */
    rtoPerson: RtoPerson | null
  }
}

/** Route options of a console page: the session guards it (not a bearer token), hidden from OpenAPI. */
export const pageRoute = { config: { public: true }, schema: { hide: true } } as const
/** Route options of a console form: as a page, and the form's fields are the console's to check. */
export const formRoute = { config: { public: true, checksOwnBody: true }, schema: { hide: true } } as const

/** The route options, audited as `action` (issue 33: the HTTP layer's audit hook writes the entry). */
export function audited<Options extends { config: object }>(options: Options, action: AuditAction) {
  return { ...options, config: { ...options.config, audit: action } }
}

/** Anyone signed in (every role), their session renewed; signed out: to the sign-in. */
async function signedIn(request: FastifyRequest, reply: FastifyReply) {
  const user = request.session.get('user')
  if (!user) return reply.redirect(`${CONSOLE_PREFIX}/`, 303)
  request.session.touch() // the idle timeout starts again
  request.consolePerson = user
  // Who the audit trail names for what this request reads or changes: the subject only, never the name.
  request.auditActor = {
    kind: user.role === 'operator' ? 'operator' : 'person',
    id: user.subject,
    role: user.role,
    rto: user.rto ?? null,
  }
}

/** The preHandlers of console routes, by who may use them. Each answers for itself when the person may not. */
export const only = {
  /** Anyone signed in. */
  signedIn,
  /** An operator; an RTO person gets 404 (no such page for them). */
  async operators(request: FastifyRequest, reply: FastifyReply) {
    await signedIn(request, reply)
    if (reply.sent) return reply
    if (request.consolePerson?.role !== 'operator') throw new NotFoundError('Operators’ pages only.')
  },
  /** Anyone who may see the RTO of the path (its own people, operators read-only); others get 404. */
  async rtoReaders(request: FastifyRequest, reply: FastifyReply) {
    await signedIn(request, reply)
    if (reply.sent) return reply
    const user = request.consolePerson!
    const { rto } = request.params as { rto: string }
    if (!maySeeRto(user, rto)) throw new NotFoundError('No such RTO page for you.')
    request.rtoPerson = { user, actor: actorFor(user, rto), rto }
  },
  /** The RTO's own people (staff and authorised person): operators read RTO data, they do not change it. */
  async rtoReporters(request: FastifyRequest, reply: FastifyReply) {
    await only.rtoReaders(request, reply)
    if (reply.sent) return reply
    if (!canReport(request.rtoPerson!.user)) throw new NotFoundError('Operators read RTO data; they do not change it.')
  },
  /** The RTO's authorised person (what the API's vet:declare scope allows). */
  async rtoDeclarers(request: FastifyRequest, reply: FastifyReply) {
    await only.rtoReaders(request, reply)
    if (reply.sent) return reply
    if (!canDeclare(request.rtoPerson!.user)) throw new NotFoundError('Only the RTO’s authorised person does this.')
  },
}

/** The signed-in person of a route guarded by `only.*`. */
export function personOf(request: FastifyRequest): ConsoleUser {
  if (!request.consolePerson) throw new Error('a console route without its session preHandler')
  return request.consolePerson
}

/** The person for the RTO of a route guarded by `only.rto*`. */
export function rtoPersonOf(request: FastifyRequest): RtoPerson {
  if (!request.rtoPerson) throw new Error('an RTO page without its session preHandler')
  return request.rtoPerson
}

/** The frame of a page: its title, the person, the RTO whose navigation it shows, a CSRF token, a flash. */
export function frameFor(
  request: FastifyRequest,
  reply: FastifyReply,
  user: ConsoleUser,
  title: string,
  rto?: string,
): PageFrame {
  const flash = request.session.get('flash')
  if (flash) request.session.set('flash', undefined)
  return { title, user, rto, csrf: reply.generateCsrf(), flash }
}

export function html(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body)
}

/**
 * What a page's live status script (live-status.js) polls: the job's status, and the page's own
 * rendering of it, which the script puts in place until the status is no longer pending.
 */
export function liveStatus(reply: FastifyReply, status: string, html: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send({ status, html })
}

/** The console path of an RTO's page. */
export const rtoPath = (rto: string, rest = '') => `${CONSOLE_PREFIX}/rto/${encodeURIComponent(rto)}/${rest}`
