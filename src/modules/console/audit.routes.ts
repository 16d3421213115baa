// The audit trail in the console (issue 33): operators search every RTO's entries and export them as
// CSV; an RTO's authorised person does the same for their own RTO only (the filter always carries it:
// another RTO's page is 404, as every RTO page is). RTO staff have no such page. Looking at the trail
// is itself recorded (audit.search, audit.export).
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { AUDIT_ACTIONS } from '../../domain/audit.ts'
import { type AuditCursor, type AuditFilter, auditCsv, searchAudit } from '../audit/index.ts'
import { renderPage } from './console.views.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { AuditQuery, readInput } from './console-input.ts'
import type { ConsoleUser } from './console-people.ts'
import { audited, frameFor, html, only, pageRoute, personOf, rtoPersonOf } from './page-kit.ts'

/** A calendar day that exists (the pattern has checked its shape). */
const realDay = (day: string | undefined) =>
  day !== undefined && !Number.isNaN(Date.parse(day)) && new Date(day).toISOString().slice(0, 10) === day
    ? day
    : undefined

interface AuditForm {
  rto: string
  actor: string
  action: string
  record: string
  from: string
  to: string
}

/** The filter a query asks for; `ownRto` (an RTO's person) replaces whatever RTO it names. */
function filterOf(
  query: unknown,
  ownRto: string | undefined,
): { filter: AuditFilter; form: AuditForm; before?: AuditCursor } {
  const input = readInput(AuditQuery, query)
  const from = realDay(input.from)
  const to = realDay(input.to)
  const rto = ownRto ?? input.rto
  const filter: AuditFilter = { rto, actorId: input.actor, action: input.action, recordId: input.record, from, to }
  const [day, pos] = input.before?.split('.') ?? []
  const before = day && realDay(day) && pos ? { day, pos: Number(pos) } : undefined
  return {
    filter,
    form: {
      rto: rto ?? '',
      actor: input.actor ?? '',
      action: input.action ?? '',
      record: input.record ?? '',
      from: from ?? '',
      to: to ?? '',
    },
    ...(before ? { before } : {}),
  }
}

export const auditPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const operatorPage = audited({ ...pageRoute, preHandler: only.operators }, 'audit.search')
  const operatorCsv = audited({ ...pageRoute, preHandler: only.operators }, 'audit.export')
  const rtoPage = audited({ ...pageRoute, preHandler: only.rtoDeclarers }, 'audit.search')
  const rtoCsv = audited({ ...pageRoute, preHandler: only.rtoDeclarers }, 'audit.export')

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    path: string,
    ownRto: string | undefined,
  ) => {
    const { filter, form, before } = filterOf(request.query, ownRto)
    const found = await searchAudit(options.db, filter, before)
    const title = ownRto ? `RTO ${ownRto}: audit trail` : 'Audit trail'
    const frame = frameFor(request, reply, user, title, ownRto)
    return html(
      reply,
      renderPage(
        'audit',
        { ...frame, current: 'audit' },
        { path, form, found, actions: AUDIT_ACTIONS, ownRto, continued: before !== undefined },
      ),
    )
  }

  const csv = (request: FastifyRequest, reply: FastifyReply, ownRto: string | undefined) => {
    const { filter } = filterOf(request.query, ownRto)
    const name = `audit-${ownRto ?? 'all'}-${new Date().toISOString().slice(0, 10)}.csv`
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(auditCsv(options.db, filter)))
  }

  app.get('/audit', operatorPage, async (request, reply) =>
    page(request, reply, personOf(request), '/console/audit', undefined),
  )
  app.get('/audit.csv', operatorCsv, async (request, reply) => csv(request, reply, undefined))

  app.get<{ Params: { rto: string } }>('/rto/:rto/audit', rtoPage, async (request, reply) => {
    const who = rtoPersonOf(request)
    return page(request, reply, who.user, `/console/rto/${encodeURIComponent(who.rto)}/audit`, who.rto)
  })
  app.get<{ Params: { rto: string } }>('/rto/:rto/audit.csv', rtoCsv, async (request, reply) =>
    csv(request, reply, rtoPersonOf(request).rto),
  )
}
