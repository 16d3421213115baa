// The audit trail's HTTP side (issue 33): a route declares the action it is audited as
// (`config: { audit: 'record.read' }`), and one onSend hook turns each answered request of such a
// route into an entry (who, from where, what, which record, which RTO, the outcome) and hands it to
// the writer app.ts gives (modules/audit's recordAudit). The platform knows no module: the writer is
// a function, the entry a plain object of the shared kernel's vocabulary (src/domain/audit.ts).
//
// The entry is written before the answer leaves. Reads of personal data fail closed: if the entry
// cannot be written, the answer is replaced by 503 and the data is not sent. A change has already
// committed when its answer is sent: its answer stands, and the failure is logged at error level
// (docs/decisions.md, "The audit trail (issue 33)").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  type AuditAction,
  type AuditActorKind,
  type AuditEntryInput,
  isReadAction,
  outcomeOfStatus,
} from '../../domain/audit.ts'
import type { AuditInStatement } from '../db/audit-in-statement.ts'
import { problemTypes, problemTypeUri } from './problem.ts'

/** How a route is audited: its action, and where the target comes from when the path does not say. */
export type AuditDeclaration =
  | AuditAction
  | {
      action: AuditAction
      /** The record type the route serves (the resource routes, one per type). */
      recordType?: string
      /** The batch token is in the answer's transactionBatchToken (creating a batch). */
      batchFromAnswer?: boolean
    }

/** Who acts, as a console page's preHandler puts it on the request (API clients are read from request.actor). */
export interface AuditedActor {
  kind: AuditActorKind
  id: string
  role: string | null
  /** The RTO the person belongs to (none for an operator). */
  rto: string | null
}

/** What a handler knows better than its path: the action taken (null: nothing to record) and the target. */
export interface AuditNote {
  action?: AuditAction | null
  recordType?: string | null
  recordId?: string | null
  batchToken?: string | null
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The action this route is audited as (issue 33); absent: not audited. */
    audit?: AuditDeclaration
  }
  interface FastifyRequest {
    /** Set by the console's preHandlers for the signed-in person. */
    auditActor?: AuditedActor
    /** Set by a handler that refines what its route declares. */
    auditNote?: AuditNote
    /**
     * The request's entry as a part of the change's own statement (auditInStatement below); set once
     * handed out, so that the hook does not write the entry a second time.
     */
    auditInStatementGiven?: boolean
  }
}

export type AuditWriter = (entry: AuditEntryInput) => Promise<unknown>

/** Makes the SQL that writes an entry inside a change's statement (modules/audit's auditInStatement). */
export type AuditInStatementMaker = (entry: Omit<AuditEntryInput, 'status' | 'outcome'>) => AuditInStatement

const inStatementMakers = new WeakMap<object, AuditInStatementMaker>()

const RETRY_AFTER_SECONDS = 5

export function installAuditHook(app: FastifyInstance, write: AuditWriter, inStatement?: AuditInStatementMaker): void {
  if (inStatement) inStatementMakers.set(app, inStatement)
  app.addHook('onSend', async (request, reply, payload) => {
    // Written by the change's own statement, which commits exactly when the change succeeds: a success
    // has its entry already; a refusal or a failure (nothing changed) is written here as before.
    if (request.auditInStatementGiven && reply.statusCode < 300) return payload
    const entry = auditEntryOf(request, reply, payload)
    if (!entry) return payload
    try {
      await write(entry)
      return payload
    } catch (error) {
      if (!isReadAction(entry.action)) {
        // The change is committed; its answer must say so. Not silent: an error for the operators.
        request.log.error({ err: error, action: entry.action }, 'audit entry not written for a change')
        return payload
      }
      request.log.error({ err: error, action: entry.action }, 'audit entry not written: the read is refused')
      return refusal(request, reply, payload)
    }
  })
}

/**
 * The request's audit entry as SQL for the statement that makes its change (issue 30: one statement
 * fewer per upload, and the change and its entry commit together), or undefined when the route is not
 * audited, no one is identified, or the service writes entries after the answer only. For a handler whose
 * change is one statement that commits exactly when the answer is a success (2xx), and whose success
 * status the statement says (audit-in-statement.ts); handing it out tells the hook not to write the entry
 * of a success again. Call it once the handler's auditNote is set.
 */
export function auditInStatement(request: FastifyRequest): AuditInStatement | undefined {
  const make = makerFor(request.server)
  if (!make) return undefined
  const entry = auditEntryOf(request, undefined, undefined)
  if (!entry) return undefined
  const { status: _status, outcome: _outcome, ...rest } = entry
  request.auditInStatementGiven = true
  return make(rest)
}

/** The maker given to the app the hook was installed on (plugins are its children by prototype). */
function makerFor(instance: object): AuditInStatementMaker | undefined {
  for (let at: object | null = instance; at; at = Object.getPrototypeOf(at) as object | null) {
    const make = inStatementMakers.get(at)
    if (make) return make
  }
  return undefined
}

/**
 * The entry for this answer, or undefined when the route is not audited or no one is identified.
 * Without a reply (an entry for the change's own statement), the status is left for the statement.
 */
function auditEntryOf(
  request: FastifyRequest,
  reply: FastifyReply | undefined,
  payload: unknown,
): AuditEntryInput | undefined {
  const declared = request.routeOptions.config?.audit
  const note = request.auditNote ?? {}
  if (note.action === null) return undefined
  const action = note.action ?? (typeof declared === 'string' ? declared : declared?.action)
  if (!action) return undefined
  const actor = actorOf(request)
  if (!actor) return undefined // refused before anyone was identified (no or a bad token): the request log has it
  const params = (request.params ?? {}) as Record<string, unknown>
  const query = (request.query ?? {}) as Record<string, unknown>
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)
  const uidParam = Object.entries(params).find(([name]) => /uid$/i.test(name))?.[1]
  const declaredType = typeof declared === 'object' ? declared.recordType : undefined
  let batchToken = note.batchToken ?? text(params.transactionBatchToken) ?? text(params.token)
  if (!batchToken && reply && typeof declared === 'object' && declared.batchFromAnswer && reply.statusCode < 300)
    batchToken = tokenInAnswer(payload)
  return {
    actorKind: actor.kind,
    actorId: actor.id,
    actorRole: actor.role,
    sourceAddress: request.ip ?? null,
    action,
    recordType:
      note.recordType ??
      declaredType ??
      text(params.resourceType) ??
      text(query.resourceType) ??
      text(bodyField(request.body, 'resourceType')) ??
      (text(params.dataset) ? 'reference-dataset' : null),
    recordId: note.recordId ?? text(uidParam) ?? text(params.dataset),
    batchToken,
    rto: actor.kind === 'client' ? actor.rto : (text(params.rto) ?? actor.rto),
    outcome: outcomeOfStatus(reply?.statusCode ?? 200),
    status: reply?.statusCode ?? null,
    requestId: String(request.id),
  }
}

/** A field of a JSON object body (uid-match's resourceType), if the body is one. */
function bodyField(body: unknown, name: string): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined
}

function actorOf(request: FastifyRequest): AuditedActor | undefined {
  if (request.auditActor) return request.auditActor
  if (request.actor) return { kind: 'client', id: request.actor.clientId, role: 'client', rto: request.actor.rto }
  return undefined
}

function tokenInAnswer(payload: unknown): string | null {
  if (typeof payload !== 'string') return null
  try {
    const token = (JSON.parse(payload) as { transactionBatchToken?: unknown }).transactionBatchToken
    return typeof token === 'string' ? token : null
  } catch {
    return null
  }
}

/** The answer in place of the data: 503 problem details; a streamed body is closed unsent. */
function refusal(request: FastifyRequest, reply: FastifyReply, payload: unknown): string {
  const stream = payload as { destroy?: () => void } | null
  if (stream && typeof stream.destroy === 'function') stream.destroy()
  reply.removeHeader('content-disposition')
  reply.removeHeader('content-length')
  reply.removeHeader('content-encoding')
  reply
    .code(503)
    .header('content-type', 'application/problem+json; charset=utf-8')
    .header('retry-after', String(RETRY_AFTER_SECONDS))
  const { status, title } = problemTypes['service-unavailable']
  return JSON.stringify({
    type: problemTypeUri('service-unavailable'),
    title,
    status,
    detail:
      'The access could not be recorded in the audit trail, so the data is not sent. Retry after the seconds in Retry-After.',
    instance: request.url.split('?')[0],
    traceId: String(request.id),
  })
}
