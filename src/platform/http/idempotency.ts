// Idempotency keys on the POSTs that take effect (issue 34; docs/decisions.md, "Idempotency keys
// (issue 34)"). A client sends `Idempotency-Key: <1 to 255 printable ASCII characters>`; the first
// request with a key does the work and its answer is kept 24 hours; a later request with the same key
// and the same method, path and body gets that answer again (with `Idempotent-Replayed: true`)
// without doing the work; the same key with another method, path or body is 422; while the first is
// still running, 409 with Retry-After. A 5xx is not kept (the retry does the work). Keys belong to
// one client of one RTO. Every authenticated POST takes a key unless its route says
// `config.idempotencyKey: false` (uid-match, a read); a request without the header is served as
// before. The header is checked after the request's own structural check and authentication, so a
// refused request (400, 401, 403, 413, 415, 429) never touches a key.
import { createHash } from 'node:crypto'
import Type from 'typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { StructuralError } from '../../domain/errors.ts'
import type { Db } from '../db/database.ts'
import {
  claimKey,
  releaseClaim,
  renewClaim,
  storeAnswer,
  type KeyScope,
  type StoredAnswer,
} from '../idempotency/idempotency.repo.ts'
import { NdjsonBody } from './body-parsers.ts'
import { sendProblem } from './error-handler.ts'
import { HttpRequestError } from './problem.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route takes no Idempotency-Key (a POST that only reads). Authenticated POSTs take one otherwise. */
    idempotencyKey?: boolean
  }
  interface FastifyRequest {
    idempotencyClaim?: { scope: KeyScope; owner: string; renewal: NodeJS.Timeout }
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key'
/** Answers are kept, and a key cannot be used for another request, for this long. */
export const KEEP_ANSWERS_MS = 24 * 60 * 60 * 1000
/** A claim lapses this long after its last renewal (its process died); renewed every third of it. */
export const CLAIM_LEASE_MS = 15_000
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/
/** The answer's headers kept with it (besides the status and body). */
const KEPT_HEADERS = ['content-type', 'location']

/** The header as the OpenAPI description shows it on each operation that takes it. */
export const IdempotencyKeyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Makes the request safe to retry: a value unique to this request (a UUID), 1 to 255 printable ASCII characters, sent again unchanged with every retry of it. The first request with a key does the work and its answer is kept 24 hours: a later request with the same key, method, path and body gets the same answer again (status, body, with Idempotent-Replayed: true) without doing the work; the same key with another method, path or body is refused with 422 (/problems/idempotency-key-reused); while the first is still running, 409 (/problems/idempotency-key-in-progress) with Retry-After. Keys belong to the client (its id and RTO). A 5xx answer is not kept: a retry does the work. Without the header the request is served as usual.',
    }),
  ),
})

function takesKey(route: { method: string | string[]; config?: { scope?: unknown; idempotencyKey?: boolean } }) {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return methods.includes('POST') && route.config?.scope !== undefined && route.config.idempotencyKey !== false
}

/** The request's fingerprint: method, path and query, and the body as checked (canonical JSON, NDJSON lines, or bytes). */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const hash = createHash('sha256').update(`${method} ${url}\n`)
  if (body instanceof Uint8Array) hash.update('bytes\n').update(body)
  else if (body instanceof NdjsonBody) {
    hash.update('ndjson\n')
    for (const line of body.lines) hash.update(line.text).update('\n')
  } else hash.update('json\n').update(canonicalJson(body) ?? '')
  return hash.digest('hex')
}

/** JSON with every object's keys sorted, so the same value hashes the same whatever order it was written in. */
function canonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item) ?? 'null').join(',')}]`
  const entries = Object.keys(value)
    .sort()
    .flatMap((key) => {
      const text = canonicalJson((value as Record<string, unknown>)[key])
      return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`]
    })
  return `{${entries.join(',')}}`
}

function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_HEADER]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    throw new StructuralError([
      {
        accessPath: 'header.Idempotency-Key',
        message: 'must be 1 to 255 printable ASCII characters, sent once',
      },
    ])
  }
  return value
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  reply.code(answer.status)
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value)
  reply.header('idempotent-replayed', 'true')
  return reply.send(Buffer.from(answer.body))
}

export function installIdempotency(app: FastifyInstance, db: Db): void {
  app.addHook('onRoute', (route) => {
    if (!takesKey(route)) return
    route.config = { ...route.config, idempotencyKey: true }
    // For the description only: request validation checks path, query and body (request-validation.ts); the key is checked here.
    const schema = (route.schema ?? {}) as { headers?: { properties?: Record<string, unknown> } }
    const headers = schema.headers
      ? { ...schema.headers, properties: { ...schema.headers.properties, ...IdempotencyKeyHeaders.properties } }
      : IdempotencyKeyHeaders
    route.schema = { ...route.schema, headers }
  })

  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.idempotencyKey !== true || !request.actor) return
    const key = keyOf(request)
    if (key === undefined) return
    const scope: KeyScope = { rto: request.actor.rto, clientId: request.actor.clientId, key }
    const fingerprint = requestFingerprint(request.method, request.url, request.body)
    const claim = await claimKey(db, scope, fingerprint, { leaseMs: CLAIM_LEASE_MS, keepMs: KEEP_ANSWERS_MS })
    switch (claim.kind) {
      case 'claimed': {
        const renewal = setInterval(() => {
          renewClaim(db, scope, claim.owner, CLAIM_LEASE_MS).catch((error: unknown) =>
            request.log.warn({ err: error }, 'idempotency key: lease not renewed'),
          )
        }, CLAIM_LEASE_MS / 3)
        renewal.unref()
        request.idempotencyClaim = { scope, owner: claim.owner, renewal }
        return
      }
      case 'mismatch':
        throw new HttpRequestError(
          'idempotency-key-reused',
          'This Idempotency-Key was used for another request (a different method, path or body) in the last 24 hours. Nothing was done; send a new key for a new request.',
        )
      case 'in-progress':
        reply.header('Retry-After', String(claim.retryAfterSeconds))
        return sendProblem(
          request,
          reply,
          'idempotency-key-in-progress',
          `A request with this Idempotency-Key is still being processed. Nothing was done; send it again after ${claim.retryAfterSeconds} s to get its answer.`,
        )
      case 'answered':
        return replay(reply, claim.answer)
    }
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim
    if (!claim) return payload
    request.idempotencyClaim = undefined
    clearInterval(claim.renewal)
    const keepable = typeof payload === 'string' || payload instanceof Uint8Array || payload == null
    try {
      if (reply.statusCode >= 500 || !keepable) await releaseClaim(db, claim.scope, claim.owner)
      else {
        const headers: Record<string, string> = {}
        for (const name of KEPT_HEADERS) {
          const value = reply.getHeader(name)
          if (value !== undefined) headers[name] = String(value)
        }
        const body = payload == null ? new Uint8Array() : typeof payload === 'string' ? Buffer.from(payload) : payload
        await storeAnswer(db, claim.scope, claim.owner, { status: reply.statusCode, headers, body })
      }
    } catch (error) {
      // The answer still goes out; the key's lease lapses and a retry does the work again.
      request.log.warn({ err: error }, 'idempotency key: answer not kept')
    }
    return payload
  })

  // A request that ends without an answer being sent (the client went away) stops renewing its claim.
  app.addHook('onResponse', async (request) => {
    if (request.idempotencyClaim) clearInterval(request.idempotencyClaim.renewal)
  })
}
