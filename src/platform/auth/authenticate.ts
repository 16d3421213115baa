// Every route is protected unless it says otherwise: a route declares either `config.scope` (the
// scope it needs) or `config.public: true`. A route with neither stops start-up, so nothing can be
// exposed by forgetting. Authentication runs first (onRequest), before any body is read or stored; rate
// limiting runs inside it, between identifying the caller and refusing it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InsufficientScopeError, UnauthenticatedError } from '../../domain/errors.ts'
import type { Actor, Scope } from './scopes.ts'
import { InvalidTokenError, type TokenVerifier } from './tokens.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the caller's token must carry. */
    scope?: Scope
    /** No authentication (health, documentation, token endpoint). */
    public?: boolean
  }
  interface FastifyRequest {
    actor?: Actor
  }
}

const PUBLIC_PREFIXES = ['/docs'] // routes registered by the documentation plugin

/** Counts a request against its client or address (rate limiting); throws when it is over the limit. */
export type RequestLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/**
 * `limit` runs once the caller is identified and before any refusal: an authenticated request counts
 * against its client, and a request refused for its token (none, garbage, expired) counts against its
 * address as the token endpoint's and unknown paths' do, since those are what an attacker sends. Routes
 * with `config.rateLimit: false` (health, documentation, metrics) are not counted.
 */
export function installAuthentication(
  app: FastifyInstance,
  verifier: TokenVerifier,
  options: { limit?: RequestLimiter | undefined } = {},
): void {
  app.addHook('onRoute', (route) => {
    if (PUBLIC_PREFIXES.some((prefix) => route.url.startsWith(prefix)))
      route.config = { ...route.config, public: true, rateLimit: false }
    const config = route.config as { scope?: Scope; public?: boolean } | undefined
    if (!config?.public && !config?.scope) {
      throw new Error(`Route ${route.method} ${route.url} declares neither config.scope nor config.public`)
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    const { scope, public: isPublic, rateLimit } = request.routeOptions.config
    // Unknown routes go on to the not-found problem; public ones need no token.
    const refusal = isPublic || request.is404 ? undefined : await identify(request, reply, verifier, scope)
    if (options.limit && rateLimit !== false) await options.limit(request, reply)
    if (refusal) throw refusal
  })
}

/**
 * Sets request.actor from the bearer token; returns the refusal (401, 403) rather than throwing it, so
 * the request is counted first. Anything else (the database cannot be reached to check the client)
 * is thrown to the error handler, so the caller keeps a good token and retries after a 503.
 */
async function identify(
  request: FastifyRequest,
  reply: FastifyReply,
  verifier: TokenVerifier,
  scope: Scope | undefined,
): Promise<Error | undefined> {
  if (!scope) return new UnauthenticatedError() // unreachable: onRoute refuses such routes; fail closed all the same
  const token = bearerToken(request)
  if (!token) return new UnauthenticatedError()
  let actor: Actor
  try {
    actor = await verifier.verify(token)
  } catch (error) {
    if (error instanceof InvalidTokenError)
      return new UnauthenticatedError(
        'The access token is not valid (malformed, expired, wrongly signed, for another audience, or its client is disabled).',
      )
    throw error
  }
  request.actor = actor
  // Every later log line of this request, including the completion line, names client and RTO.
  request.log = reply.log = request.log.child({ clientId: actor.clientId, rto: actor.rto })
  return actor.scopes.has(scope) ? undefined : new InsufficientScopeError(scope)
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  // RFC 7235 section 2.1: the scheme name is case-insensitive, and one or more spaces may follow it.
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)
  return match?.[1]
}

/** The authenticated caller of a protected route. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new UnauthenticatedError()
  return request.actor
}
