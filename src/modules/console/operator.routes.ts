// The operator's desk: the collection at a glance for a jurisdiction and period, the background jobs
// (failed and slow ones with their error, retrying a failed one), and the SMS clients (add, rotate a
// secret, disable and enable). The collection calendar is calendar.routes.ts. RTO people get 404 for
// every page here.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFoundError } from '../../domain/errors.ts'
import type { ConsoleUser } from './console-people.ts'
import { renderPage } from './console.views.ts'
import * as operatorService from './operator.service.ts'
import { type ConsoleDependencies, JURISDICTIONS, recentPeriods } from './console-shared.ts'
import { collectionProgress, progressPeriods } from './console-trends.ts'
import { barChartSvg } from './svg-chart.ts'
import { ClientForm, CollectionQuery, JobsQuery, readInput } from './console-input.ts'
import { audited, CONSOLE_PREFIX, formRoute, frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

export const operatorPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.operators }
  const form = { ...formRoute, preHandler: [app.csrfProtection, only.operators] }

  app.get('/collection', page, async (request, reply) => {
    const query = readInput(CollectionQuery, request.query)
    const periods = recentPeriods()
    const period = periods.find((p) => String(p) === query.period) ?? periods[0]!
    const jurisdiction = query.jurisdiction ?? 'NSW'
    const shown = progressPeriods()
    // One set of reads for the chosen period and the chart's: the page costs what one period does.
    const views = await operatorService.collectionOverPeriods(
      options.db,
      jurisdiction,
      [period, ...shown.filter((p) => p !== period)],
      query.page ?? 1,
    )
    const view = views.get(period)!
    const progress = collectionProgress(jurisdiction, shown, (p) => views.get(p)!.totals)
    const frame = frameFor(request, reply, personOf(request), `The collection: ${jurisdiction} ${period}`)
    return html(
      reply,
      renderPage(
        'collection',
        { ...frame, current: 'collection' },
        {
          view,
          period,
          jurisdiction,
          periods,
          jurisdictions: JURISDICTIONS,
          progress,
          svg: barChartSvg,
        },
      ),
    )
  })

  app.get('/jobs', page, async (request, reply) => {
    const query = readInput(JobsQuery, request.query)
    const filter = {
      show: query.show ?? 'all',
      slowMinutes: query.minutes ?? operatorService.DEFAULT_SLOW_MINUTES,
    }
    const view = await operatorService.jobsView(options.queue, filter)
    const frame = frameFor(request, reply, personOf(request), 'Background jobs')
    return html(
      reply,
      renderPage(
        'jobs',
        { ...frame, current: 'jobs' },
        { view, filter, shown: operatorService.FAILED_JOBS_SHOWN, slowShown: operatorService.SLOW_JOBS_SHOWN },
      ),
    )
  })

  app.post<{ Params: { queue: string; id: string } }>(
    '/jobs/:queue/:id/retry',
    audited(form, 'job.retry'),
    async (request, reply) => {
      const { queue, id } = request.params
      request.auditNote = { recordType: 'job', recordId: id }
      const retried = await options.queue.retryFailed(queue, id)
      request.log.info({ queue, jobId: id, by: personOf(request).subject, retried }, 'console: failed job retried')
      request.session.set(
        'flash',
        retried
          ? { kind: 'success', text: `Job ${id} of ${queue} is queued again.` }
          : { kind: 'error', text: `Job ${id} of ${queue} is not a failed job (it may have been retried already).` },
      )
      return reply.redirect(`${CONSOLE_PREFIX}/jobs`, 303)
    },
  )

  // SMS clients. A new or rotated secret is the answer to the post itself, shown once: never put in
  // the session, a redirect, a URL or a log.
  const clientsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    form: { clientId?: string; rto?: string; scopes?: string[] } = {},
    problem?: string,
  ) => {
    const clients = await operatorService.smsClients.list(options.db)
    const frame = frameFor(request, reply, user, 'SMS clients')
    return html(
      reply,
      renderPage(
        'clients',
        { ...frame, current: 'clients' },
        { clients, form, problem, scopes: operatorService.smsClients.scopes },
      ),
      problem ? 400 : 200,
    )
  }
  const secretPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    data: { clientId: string; rto: string; secret: string; added: boolean },
  ) => {
    const frame = frameFor(request, reply, user, data.added ? 'Client added' : 'Secret rotated')
    return html(reply, renderPage('client-secret', { ...frame, current: 'clients' }, data), data.added ? 201 : 200)
  }
  const clientPath = (clientId: string) => `${CONSOLE_PREFIX}/clients/${encodeURIComponent(clientId)}`
  const findClient = async (clientId: string) => {
    const client = (await operatorService.smsClients.list(options.db)).find((c) => c.clientId === clientId)
    if (!client) throw new NotFoundError(`No client ${clientId}.`)
    return client
  }

  app.get('/clients', page, async (request, reply) => clientsPage(request, reply, personOf(request)))

  app.post('/clients', audited(form, 'client.register'), async (request, reply) => {
    const user = personOf(request)
    const input = readInput(ClientForm, request.body)
    const fields = { clientId: input.clientId ?? '', rto: input.rto ?? '', scopes: input.scopes ?? [] }
    request.auditNote = { recordType: 'api-client', recordId: fields.clientId || null }
    try {
      const { secret } = await operatorService.smsClients.add(options.db, fields)
      request.log.info({ clientId: fields.clientId, rto: fields.rto, by: user.subject }, 'console: client added')
      return secretPage(request, reply, user, { clientId: fields.clientId, rto: fields.rto, secret, added: true })
    } catch (error) {
      if (error instanceof operatorService.smsClients.InputError)
        return clientsPage(request, reply, user, fields, error.message)
      throw error
    }
  })

  app.get<{ Params: { clientId: string } }>('/clients/:clientId/rotate', page, async (request, reply) => {
    const client = await findClient(request.params.clientId)
    const frame = frameFor(request, reply, personOf(request), `Rotate the secret of ${client.clientId}`)
    return html(
      reply,
      renderPage('client-rotate', { ...frame, current: 'clients' }, { client, path: clientPath(client.clientId) }),
    )
  })

  app.post<{ Params: { clientId: string } }>(
    '/clients/:clientId/rotate',
    audited(form, 'client.rotate-secret'),
    async (request, reply) => {
      request.auditNote = { recordType: 'api-client', recordId: request.params.clientId }
      const user = personOf(request)
      const client = await findClient(request.params.clientId)
      const { secret } = await operatorService.smsClients.rotate(options.db, client.clientId)
      request.log.info({ clientId: client.clientId, by: user.subject }, 'console: client secret rotated')
      return secretPage(request, reply, user, { clientId: client.clientId, rto: client.rto, secret, added: false })
    },
  )

  for (const action of ['disable', 'enable'] as const) {
    app.post<{ Params: { clientId: string } }>(
      `/clients/:clientId/${action}`,
      audited(form, action === 'disable' ? 'client.disable' : 'client.enable'),
      async (request, reply) => {
        request.auditNote = { recordType: 'api-client', recordId: request.params.clientId }
        const client = await findClient(request.params.clientId)
        await operatorService.smsClients.setEnabled(options.db, client.clientId, action === 'enable')
        request.log.info({ clientId: client.clientId, by: personOf(request).subject }, `console: client ${action}d`)
        request.session.set('flash', {
          kind: 'success',
          text:
            action === 'disable'
              ? `Client ${client.clientId} is disabled: it gets no new token, and its tokens are refused once each API process's client cache (AUTH_CLIENT_CACHE_SECONDS) has expired.`
              : `Client ${client.clientId} is enabled again.`,
        })
        return reply.redirect(`${CONSOLE_PREFIX}/clients`, 303)
      },
    )
  }
}
