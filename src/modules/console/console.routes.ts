// HTTP wiring of the web console under /console: sealed-cookie sessions with an idle timeout, a CSRF
// token on every form, signing in through OpenID Connect, and the pages of an RTO. Every page is
// server-rendered HTML that works without script. Routes are hidden from the OpenAPI document and
// guarded by the console session rather than a bearer token. An RTO person asking for another RTO's
// pages, or a batch that is not their RTO's, gets 404, as an API client does.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import secureSession from '@fastify/secure-session'
import csrfProtection from '@fastify/csrf-protection'
import multipart from '@fastify/multipart'
import type { ConsoleConfig } from '../../config/config.ts'
import { ConflictError, DomainError, NotFoundError, StructuralError } from '../../domain/errors.ts'
import { problemTypes } from '../../platform/http/problem.ts'
import { createStructuralCheck } from '../../platform/http/request-validation.ts'
import { DeclarationRequest } from '../declarations/index.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { actorFor, canDeclare, canReport, type ConsoleUser, maySeeRto } from './console-people.ts'
import { createRelyingParty, type PendingSignIn, SignInRefused } from './console-sign-in.ts'
import { type Flash, type PageFrame, renderFragment, renderPage } from './console.views.ts'
import * as consoleService from './console.service.ts'
import * as sessions from './console-sessions.ts'
import { failedResultsCsv } from './failed-results-csv.ts'
import { builtInProviderClient, demoIdentityProviderRoutes } from './demo-identity-provider.routes.ts'
import type { PageKit } from './page-kit.ts'
import { referenceReleasePages } from './reference-release.routes.ts'
import { ruleCataloguePages } from './rules.routes.ts'
import { sessionPages } from './sessions.routes.ts'

export const CONSOLE_PREFIX = '/console'

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

export interface ConsoleRouteOptions extends consoleService.ConsoleDependencies {
  console: ConsoleConfig
  publicBaseUrl: string
  /** The NAT import's limits (LIMIT_NAT_ZIP_BYTES, LIMIT_NAT_FILES_BYTES), as the API's nat-import route. */
  natLimits: { natZipBytes: number; natFilesBytes: number }
}

const STYLESHEET = readFileSync(new URL('./assets/console.css', import.meta.url))
/** Live status of a batch's validation or a period's assessment (an enhancement; the pages work without it). No build step. */
const LIVE_STATUS_SCRIPT = readFileSync(new URL('./assets/live-status.js', import.meta.url))
/** Upload progress of the file forms (an enhancement; the forms post without it). */
const UPLOAD_PROGRESS_SCRIPT = readFileSync(new URL('./assets/upload-progress.js', import.meta.url))
const config = { public: true } // the console session guards these routes, not a bearer token
// A form's fields are the console's to check (the declaration with the API's own structural check),
// not the request hook's, which takes only JSON bodies a schema names.
const formConfig = { public: true, checksOwnBody: true }
const checkStructure = createStructuralCheck()
const schema = { hide: true } // not part of the API's OpenAPI document

type RtoParams = { rto: string }
type BatchPathParams = RtoParams & { jurisdiction: string; token: string }
type ResultQuery = { rule?: string; type?: string; page?: string }

export const consoleRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, options) => {
  const { publicBaseUrl } = options
  const settings = options.console
  const secure = publicBaseUrl.startsWith('https://')
  const redirectUri = `${publicBaseUrl}${CONSOLE_PREFIX}/callback`
  const postLogoutRedirectUri = `${publicBaseUrl}${CONSOLE_PREFIX}/signed-out`
  const identityProvider = settings.identityProvider
  const builtIn = identityProvider.kind === 'built-in' ? builtInProviderClient(publicBaseUrl) : undefined
  const provider =
    identityProvider.kind === 'external'
      ? {
          issuer: identityProvider.issuer,
          clientId: identityProvider.clientId,
          clientSecret: identityProvider.clientSecret,
        }
      : builtIn!
  const relyingParty = createRelyingParty({
    ...provider,
    scope: settings.scope,
    rtoClaim: settings.rtoClaim,
    roleClaim: settings.roleClaim,
    redirectUri,
    postLogoutRedirectUri,
  })

  await app.register(secureSession, {
    key: settings.sessionKey ?? randomBytes(32),
    cookieName: 'vetrs_console',
    expiry: settings.sessionIdleSeconds,
    cookie: { path: CONSOLE_PREFIX, httpOnly: true, sameSite: 'lax', secure, maxAge: settings.sessionIdleSeconds },
  })
  await app.register(csrfProtection, { sessionPlugin: '@fastify/secure-session' })
  // The NAT zip upload is the console's only multipart form: its fields, the zip included, are read
  // into the body (so the CSRF check reads _csrf there), bounded by the NAT import's own zip limit.
  const { natLimits } = options
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: natLimits.natZipBytes, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
  })

  // Pages may load their stylesheet and the console's own scripts (files it serves, never inline),
  // which may ask the console for data, and post forms to the console and to the identity provider
  // (sign out ends there); nothing else.
  const formTargets = ["'self'", ...(builtIn ? [] : [new URL(provider.issuer).origin])].join(' ')
  const contentSecurityPolicy = `default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action ${formTargets}; base-uri 'none'; frame-ancestors 'none'`
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('content-security-policy', contentSecurityPolicy)
    reply.header('referrer-policy', 'same-origin') // batch tokens in URLs stay on the console
  })

  installHtmlErrors(app)

  // A signed-in session is served only while its row is going on (console-sessions.ts): one read by
  // primary key per page. The stylesheet and scripts, and the identity provider's pages, need none.
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith(`${CONSOLE_PREFIX}/assets/`) || request.url.startsWith(`${CONSOLE_PREFIX}/idp`)) return
    if (!request.session.get('user')) return
    const sessionId = request.session.get('sessionId')
    if (!sessionId || !(await sessions.sessionGoingOn(options.db, sessionId, settings.sessionIdleSeconds))) {
      request.session.regenerate() // nothing of it is read by this request (delete alone keeps it readable)
      request.session.delete() // and the cookie is cleared in the answer
    }
  })

  if (builtIn)
    await app.register(demoIdentityProviderRoutes, {
      client: builtIn,
      options: {
        publicBaseUrl,
        redirectUri,
        postLogoutRedirectUri,
        rtoClaim: settings.rtoClaim,
        roleClaim: settings.roleClaim,
      },
    })

  /** The signed-in person, their session renewed (the idle timeout starts again); undefined when signed out. */
  const signedIn = (request: FastifyRequest): ConsoleUser | undefined => {
    const user = request.session.get('user')
    if (user) request.session.touch()
    return user
  }

  /** The frame every page of an RTO shares. */
  const frameFor = (request: FastifyRequest, reply: FastifyReply, user: ConsoleUser, title: string, rto?: string) => {
    const flash = request.session.get('flash')
    if (flash) request.session.set('flash', undefined)
    return { title, user, rto, csrf: reply.generateCsrf(), flash } satisfies PageFrame
  }

  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').send(body)

  /** The person, allowed to see this RTO; otherwise the sign-in (signed out) or 404 (another RTO's). */
  const requireRto = (request: FastifyRequest<{ Params: RtoParams }>, reply: FastifyReply) => {
    const user = signedIn(request)
    if (!user) {
      void reply.redirect(`${CONSOLE_PREFIX}/`, 303)
      return undefined
    }
    if (!maySeeRto(user, request.params.rto)) throw new NotFoundError('No such RTO page for you.')
    return { user, actor: actorFor(user, request.params.rto), rto: request.params.rto }
  }

  /** The signed-in operator; otherwise the sign-in (signed out) or 404 (an RTO person: no such page for them). */
  const requireOperator = (request: FastifyRequest, reply: FastifyReply) => {
    const user = signedIn(request)
    if (!user) {
      void reply.redirect(`${CONSOLE_PREFIX}/`, 303)
      return undefined
    }
    if (user.role !== 'operator') throw new NotFoundError('Operators’ pages only.')
    return { user, actorFor: (rto: string) => actorFor(user, rto) }
  }

  app.get('/assets/console.css', { config, schema }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  )

  app.get('/assets/upload-progress.js', { config, schema }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(UPLOAD_PROGRESS_SCRIPT),
  )

  app.get('/assets/live-status.js', { config, schema }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(LIVE_STATUS_SCRIPT),
  )

  app.get('/', { config, schema }, async (request, reply) => {
    const user = signedIn(request)
    if (!user) return html(reply, renderPage('signed-out-home', { title: 'Sign in' }, { demoProvider: !!builtIn }))
    if (user.rto) return reply.redirect(`${CONSOLE_PREFIX}/rto/${encodeURIComponent(user.rto)}/`, 303)
    const rtos = await consoleService.knownRtos(options.db)
    return html(reply, renderPage('rtos', { ...frameFor(request, reply, user, 'RTOs'), current: 'rtos' }, { rtos }))
  })

  app.get('/sign-in', { config, schema }, async (request, reply) => {
    const { url, pending } = await relyingParty.begin()
    request.session.set('pending', pending)
    return reply.redirect(url, 303)
  })

  app.get('/callback', { config, schema }, async (request, reply) => {
    const pending = request.session.get('pending')
    if (!pending) return reply.redirect(`${CONSOLE_PREFIX}/`, 303) // a stale or repeated callback: start again
    request.session.set('pending', undefined)
    try {
      const { user, idToken } = await relyingParty.finish(new URL(request.url, publicBaseUrl), pending)
      request.session.regenerate() // a new session for the person: nothing from before signing in carries over
      request.session.set('user', user)
      request.session.set('sessionId', await sessions.startSession(options.db, user))
      if (idToken) request.session.set('idToken', idToken)
      return reply.redirect(`${CONSOLE_PREFIX}/`, 303)
    } catch (error) {
      request.log.warn({ err: error }, 'console sign-in refused')
      const message = error instanceof SignInRefused ? error.message : 'Signing in did not complete. Please try again.'
      return html(reply, renderPage('error', { title: 'Signing in failed' }, { message, signIn: true }), 403)
    }
  })

  app.post('/sign-out', { config: formConfig, schema, preHandler: app.csrfProtection }, async (request, reply) => {
    const idToken = request.session.get('idToken')
    const sessionId = request.session.get('sessionId')
    if (sessionId) await sessions.endSession(options.db, sessionId, 'signed out')
    request.session.delete()
    const endSession = await relyingParty.signOutUrl(idToken)
    return reply.redirect(endSession ?? `${CONSOLE_PREFIX}/signed-out`, 303)
  })

  app.get('/signed-out', { config, schema }, async (_request, reply) =>
    html(reply, renderPage('signed-out', { title: 'Signed out' }, { demoProvider: false })),
  )

  /** Anyone signed in (every role); otherwise the sign-in. */
  const requireSignedIn = (request: FastifyRequest, reply: FastifyReply) => {
    const user = signedIn(request)
    if (!user) void reply.redirect(`${CONSOLE_PREFIX}/`, 303)
    return user
  }

  const kit: PageKit = { requireSignedIn, requireOperator, frameFor, html }
  referenceReleasePages(app, kit, options.db)
  ruleCataloguePages(app, kit)
  sessionPages(app, kit, options.db, settings.sessionIdleSeconds)

  // Reference data: every dataset and classification, and a dataset's current records, for every role.
  app.get('/reference-data', { config, schema }, async (request, reply) => {
    const user = requireSignedIn(request, reply)
    if (!user) return reply
    const datasets = await consoleService.referenceDatasets(options.readDb)
    const frame = frameFor(request, reply, user, 'Reference data', user.rto)
    return html(reply, renderPage('reference-datasets', { ...frame, current: 'reference-data' }, { datasets }))
  })

  app.get<{ Params: { dataset: string }; Querystring: { page?: string } }>(
    '/reference-data/:dataset',
    { config, schema },
    async (request, reply) => {
      const user = requireSignedIn(request, reply)
      if (!user) return reply
      const { dataset, records } = await consoleService.referenceRecords(
        options.readDb,
        request.params.dataset,
        pageNumberOf(request.query.page),
      )
      const frame = frameFor(request, reply, user, `Reference data: ${dataset.title}`, user.rto)
      return html(
        reply,
        renderPage(
          'reference-dataset',
          { ...frame, current: 'reference-data' },
          { dataset, records, mayLoadRelease: user.role === 'operator' },
        ),
      )
    },
  )

  app.get<{ Querystring: { period?: string; jurisdiction?: string } }>(
    '/collection',
    { config, schema },
    async (request, reply) => {
      const operator = requireOperator(request, reply)
      if (!operator) return reply
      const periods = consoleService.recentPeriods()
      const period = periods.find((p) => String(p) === request.query.period) ?? periods[0]!
      const jurisdiction = consoleService.JURISDICTIONS.find((j) => j === request.query.jurisdiction) ?? 'NSW'
      const view = await consoleService.collectionAtAGlance(options.db, jurisdiction, period)
      const frame = frameFor(request, reply, operator.user, `The collection: ${jurisdiction} ${period}`)
      return html(
        reply,
        renderPage(
          'collection',
          { ...frame, current: 'collection' },
          { view, period, jurisdiction, periods, jurisdictions: consoleService.JURISDICTIONS },
        ),
      )
    },
  )

  app.get('/jobs', { config, schema }, async (request, reply) => {
    const operator = requireOperator(request, reply)
    if (!operator) return reply
    const view = await consoleService.jobsView(options.queue)
    const frame = frameFor(request, reply, operator.user, 'Background jobs')
    return html(
      reply,
      renderPage('jobs', { ...frame, current: 'jobs' }, { view, shown: consoleService.FAILED_JOBS_SHOWN }),
    )
  })

  app.post<{ Params: { queue: string; id: string } }>(
    '/jobs/:queue/:id/retry',
    { config: formConfig, schema, preHandler: app.csrfProtection },
    async (request, reply) => {
      const operator = requireOperator(request, reply)
      if (!operator) return reply
      const { queue, id } = request.params
      const retried = await options.queue.retryFailed(queue, id)
      request.log.info({ queue, jobId: id, by: operator.user.subject, retried }, 'console: failed job retried')
      request.session.set(
        'flash',
        retried
          ? { kind: 'success', text: `Job ${id} of ${queue} is queued again.` }
          : { kind: 'error', text: `Job ${id} of ${queue} is not a failed job (it may have been retried already).` },
      )
      return reply.redirect(`${CONSOLE_PREFIX}/jobs`, 303)
    },
  )

  // SMS clients (operators). A new or rotated secret is the answer to the post itself, shown once:
  // never put in the session, a redirect, a URL or a log.
  const clientsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    form: { clientId?: string; rto?: string; scopes?: string[] } = {},
    problem?: string,
  ) => {
    const clients = await consoleService.smsClients.list(options.db)
    const frame = frameFor(request, reply, user, 'SMS clients')
    return html(
      reply,
      renderPage(
        'clients',
        { ...frame, current: 'clients' },
        { clients, form, problem, scopes: consoleService.smsClients.scopes },
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

  app.get('/clients', { config, schema }, async (request, reply) => {
    const operator = requireOperator(request, reply)
    if (!operator) return reply
    return clientsPage(request, reply, operator.user)
  })

  app.post<{ Body: Record<string, unknown> }>(
    '/clients',
    { config: formConfig, schema, preHandler: app.csrfProtection },
    async (request, reply) => {
      const operator = requireOperator(request, reply)
      if (!operator) return reply
      const body = request.body ?? {}
      const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '')
      const scopes = [body.scopes].flat().filter((value): value is string => typeof value === 'string')
      const form = { clientId: text(body.clientId), rto: text(body.rto), scopes }
      try {
        const { secret } = await consoleService.smsClients.add(options.db, form)
        request.log.info({ clientId: form.clientId, rto: form.rto, by: operator.user.subject }, 'console: client added')
        return secretPage(request, reply, operator.user, {
          clientId: form.clientId,
          rto: form.rto,
          secret,
          added: true,
        })
      } catch (error) {
        if (error instanceof consoleService.smsClients.InputError)
          return clientsPage(request, reply, operator.user, form, error.message)
        throw error
      }
    },
  )

  const findClient = async (clientId: string) => {
    const client = (await consoleService.smsClients.list(options.db)).find((c) => c.clientId === clientId)
    if (!client) throw new NotFoundError(`No client ${clientId}.`)
    return client
  }

  app.get<{ Params: { clientId: string } }>('/clients/:clientId/rotate', { config, schema }, async (request, reply) => {
    const operator = requireOperator(request, reply)
    if (!operator) return reply
    const client = await findClient(request.params.clientId)
    const frame = frameFor(request, reply, operator.user, `Rotate the secret of ${client.clientId}`)
    return html(
      reply,
      renderPage('client-rotate', { ...frame, current: 'clients' }, { client, path: clientPath(client.clientId) }),
    )
  })

  app.post<{ Params: { clientId: string } }>(
    '/clients/:clientId/rotate',
    { config: formConfig, schema, preHandler: app.csrfProtection },
    async (request, reply) => {
      const operator = requireOperator(request, reply)
      if (!operator) return reply
      const client = await findClient(request.params.clientId)
      const { secret } = await consoleService.smsClients.rotate(options.db, client.clientId)
      request.log.info({ clientId: client.clientId, by: operator.user.subject }, 'console: client secret rotated')
      return secretPage(request, reply, operator.user, {
        clientId: client.clientId,
        rto: client.rto,
        secret,
        added: false,
      })
    },
  )

  for (const action of ['disable', 'enable'] as const) {
    app.post<{ Params: { clientId: string } }>(
      `/clients/:clientId/${action}`,
      { config: formConfig, schema, preHandler: app.csrfProtection },
      async (request, reply) => {
        const operator = requireOperator(request, reply)
        if (!operator) return reply
        const client = await findClient(request.params.clientId)
        await consoleService.smsClients.setEnabled(options.db, client.clientId, action === 'enable')
        request.log.info({ clientId: client.clientId, by: operator.user.subject }, `console: client ${action}d`)
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

  app.get<{ Params: RtoParams }>('/rto/:rto/', { config, schema }, async (request, reply) => {
    const who = requireRto(request, reply)
    if (!who) return reply
    const standings = await consoleService.periodStandings(options, who.actor)
    const frame = { ...frameFor(request, reply, who.user, `RTO ${who.rto}: where each period stands`, who.rto) }
    return html(reply, renderPage('home', { ...frame, current: 'home' }, { standings }))
  })

  app.get<{ Params: RtoParams; Querystring: { page?: string } }>(
    '/rto/:rto/batches',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const page = await consoleService.batchesPage(options.db, who.actor, pageNumberOf(request.query.page))
      const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: transaction batches`, who.rto)
      return html(reply, renderPage('batches', { ...frame, current: 'batches' }, { page }))
    },
  )

  const batchRefOf = (params: BatchPathParams) => ({ token: params.token, jurisdiction: params.jurisdiction })
  const batchPath = (params: BatchPathParams) =>
    `${CONSOLE_PREFIX}/rto/${encodeURIComponent(params.rto)}/batches/${encodeURIComponent(params.jurisdiction)}/${encodeURIComponent(params.token)}`

  app.get<{ Params: BatchPathParams; Querystring: ResultQuery }>(
    '/rto/:rto/batches/:jurisdiction/:token',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const filter = filterOf(request.query)
      const view = await consoleService.batchView(
        options.db,
        who.actor,
        batchRefOf(request.params),
        filter,
        pageNumberOf(request.query.page),
      )
      const frame = frameFor(request, reply, who.user, `Batch ${request.params.token}`, who.rto)
      return html(
        reply,
        renderPage(
          'batch',
          { ...frame, current: 'batches' },
          {
            view,
            filter,
            path: batchPath(request.params),
            canReport: canReport(who.user),
            resourceTypes,
          },
        ),
      )
    },
  )

  // The batch's validation status for the page's live status script: the status and the page's own
  // rendering of it.
  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/status',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const v = await consoleService.validationStatusOf(options.db, who.actor, batchRefOf(request.params))
      return reply
        .type('application/json; charset=utf-8')
        .send({ status: v?.validationStatus ?? 'None', html: renderFragment('validation-status', { v }) })
    },
  )

  app.get<{ Params: BatchPathParams; Querystring: ResultQuery }>(
    '/rto/:rto/batches/:jurisdiction/:token/failed-results.csv',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const ref = batchRefOf(request.params)
      const filter = filterOf(request.query)
      const results = consoleService.allFailedResults(options.db, who.actor, ref, filter)
      const first = await results.next() // a batch without a completed validation is refused before any byte is sent
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="failed-results-${ref.token}.csv"`)
        .send(failedResultsCsv(first, results))
    },
  )

  for (const action of ['validate', 'cancel-validation', 'submit'] as const) {
    app.post<{ Params: BatchPathParams }>(
      `/rto/:rto/batches/:jurisdiction/:token/${action}`,
      { config: formConfig, schema, preHandler: app.csrfProtection },
      async (request, reply) => {
        const who = requireRto(request, reply)
        if (!who) return reply
        if (!canReport(who.user)) throw new NotFoundError('Operators read RTO data; they do not change it.')
        const ref = batchRefOf(request.params)
        try {
          if (action === 'validate') {
            await consoleService.validateBatch(options, who.actor, ref)
            request.session.set('flash', { kind: 'success', text: 'Validation requested. Its status is shown below.' })
          } else if (action === 'cancel-validation') {
            await consoleService.cancelBatchValidation(options.db, who.actor, ref)
            request.session.set('flash', {
              kind: 'success',
              text: 'The validation was cancelled; the results of an earlier completed validation, if any, stay.',
            })
          } else {
            // Nothing submitted by mistake: a batch a NAT import left lines out of needs them acknowledged.
            const acknowledged = (request.body as Record<string, unknown> | undefined)?.acknowledgeDropped
            const refusal = await consoleService.unacknowledgedNatProblems(
              options.db,
              who.actor,
              ref,
              typeof acknowledged === 'string' ? acknowledged : undefined,
            )
            if (refusal) request.session.set('flash', { kind: 'error', text: refusal })
            else {
              const submitted = await consoleService.submit(options, who.actor, ref)
              request.session.set('flash', {
                kind: 'success',
                text: `Submitted: ${submitted.numberOfRecordsSubmitted} records are now held.`,
              })
            }
          }
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error
          request.session.set('flash', { kind: 'error', text: error.message })
        }
        return reply.redirect(batchPath(request.params), 303)
      },
    )
  }

  // NAT zip upload: the API's NAT import (nat-bridge's importNatSet) into a new batch. The answer is
  // kept with the batch, so the post redirects to it (a reload never imports twice).
  const natImportPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    who: { user: ConsoleUser; rto: string },
    form: { jurisdiction?: string } = {},
    problem?: { status: number; message: string },
  ) => {
    const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: import NAT files`, who.rto)
    return html(
      reply,
      renderPage(
        'nat-import',
        { ...frame, current: 'nat-import' },
        {
          form,
          problem: problem?.message,
          jurisdictions: consoleService.JURISDICTIONS,
          maxMiB: Math.floor(natLimits.natZipBytes / 1024 / 1024),
        },
      ),
      problem?.status ?? 200,
    )
  }

  app.get<{ Params: RtoParams }>('/rto/:rto/nat-import', { config, schema }, async (request, reply) => {
    const who = requireRto(request, reply)
    if (!who) return reply
    if (!canReport(who.user)) throw new NotFoundError('Operators read RTO data; they do not change it.')
    return natImportPage(request, reply, who)
  })

  app.post<{ Params: RtoParams; Body: Record<string, unknown> }>(
    '/rto/:rto/nat-import',
    {
      config: {
        ...formConfig,
        // The zip and a few small fields: the NAT import's limit, plus room for the form's framing.
        bodyLimits: { wireBodyBytes: natLimits.natZipBytes + 65_536, decodedBodyBytes: natLimits.natZipBytes + 65_536 },
      },
      bodyLimit: natLimits.natZipBytes + 65_537,
      schema,
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      if (!canReport(who.user)) throw new NotFoundError('Operators read RTO data; they do not change it.')
      const body = request.body ?? {}
      const jurisdiction = consoleService.JURISDICTIONS.find((j) => j === body.jurisdiction)
      const zip = body.zip instanceof Buffer ? new Uint8Array(body.zip) : new Uint8Array(0)
      if (!jurisdiction)
        return natImportPage(request, reply, who, {}, { status: 400, message: 'Choose the jurisdiction.' })
      try {
        // What the import did is said by its answer's page (with the script, that page is read twice:
        // once by the upload's request, once when the browser goes to it, so nothing is kept for one read).
        const result = await consoleService.importNat(options.db, who.actor, jurisdiction, zip, natLimits)
        return reply.redirect(
          `${batchPath({ rto: who.rto, jurisdiction, token: result.transactionBatchToken })}/nat-import`,
          303,
        )
      } catch (error) {
        if (
          error instanceof DomainError &&
          (error.kind === 'nat-set-unreadable' ||
            error.kind === 'nat-set-too-large' ||
            error.kind === 'nat-organisation-mismatch')
        )
          return natImportPage(
            request,
            reply,
            who,
            { jurisdiction },
            {
              status: problemTypes[error.kind].status,
              message: error.message,
            },
          )
        throw error
      }
    },
  )

  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/nat-import',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const result = await consoleService.natImportAnswer(options.db, who.actor, batchRefOf(request.params))
      const frame = frameFor(request, reply, who.user, `NAT import into batch ${request.params.token}`, who.rto)
      return html(
        reply,
        renderPage(
          'nat-import-result',
          { ...frame, current: 'nat-import' },
          { result, batchPath: batchPath(request.params) },
        ),
      )
    },
  )

  app.get<{ Params: BatchPathParams; Querystring: { page?: string } }>(
    '/rto/:rto/batches/:jurisdiction/:token/nat-findings',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const findings = await consoleService.natFindingsPage(
        options.db,
        who.actor,
        batchRefOf(request.params),
        pageNumberOf(request.query.page),
        natLimits.natFilesBytes,
      )
      const frame = frameFor(
        request,
        reply,
        who.user,
        `Failed results of batch ${request.params.token} in its NAT files`,
        who.rto,
      )
      return html(
        reply,
        renderPage(
          'nat-findings',
          { ...frame, current: 'batches' },
          { findings, batchPath: batchPath(request.params), token: request.params.token },
        ),
      )
    },
  )

  // A held record by type and UID: the API's held state and related-resources. The form is a GET,
  // so the page of a record is a link (from failed results, outcomes and related records).
  app.get<{ Params: RtoParams; Querystring: { type?: string; uid?: string; page?: string } }>(
    '/rto/:rto/records',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const { type, uid } = request.query
      const asked = type !== undefined || uid !== undefined
      const resourceType = resourceTypes.find((t) => t === type)
      const resourceUID = typeof uid === 'string' ? uid.trim() : ''
      const problems = asked
        ? [
            ...(resourceType ? [] : [{ field: 'type', message: 'Choose the record type.' }]),
            ...(UUID.test(resourceUID)
              ? []
              : [{ field: 'uid', message: 'Enter the record’s UID, a UUID such as 3f2c9a1e-…-…' }]),
          ]
        : []
      const view =
        asked && problems.length === 0
          ? await consoleService.heldRecordView(
              options.readDb,
              who.actor,
              resourceType!,
              resourceUID,
              pageNumberOf(request.query.page),
            )
          : undefined
      const title = view
        ? `RTO ${who.rto}: ${view.state.resourceType} ${view.state.resourceUID}`
        : `RTO ${who.rto}: a held record`
      const frame = frameFor(request, reply, who.user, title, who.rto)
      return html(
        reply,
        renderPage(
          'record',
          { ...frame, current: 'records' },
          { view, form: { type: resourceType ?? '', uid: resourceUID }, problems, resourceTypes },
        ),
        problems.length > 0 ? 400 : 200,
      )
    },
  )

  // Data quality assessment of a period and jurisdiction: the API's status, request and failed outcomes.
  const periodChoiceOf = (query: { period?: unknown; jurisdiction?: unknown }): consoleService.PeriodChoice => {
    const periods = consoleService.recentPeriods()
    return {
      period: periods.find((p) => String(p) === query.period) ?? periods[0]!,
      jurisdiction: consoleService.JURISDICTIONS.find((j) => j === query.jurisdiction) ?? 'NSW',
    }
  }
  const assessmentPath = (rto: string, choice: consoleService.PeriodChoice) =>
    `${CONSOLE_PREFIX}/rto/${encodeURIComponent(rto)}/assessment?period=${choice.period}&jurisdiction=${choice.jurisdiction}`

  app.get<{ Params: RtoParams; Querystring: { period?: string; jurisdiction?: string; rule?: string; page?: string } }>(
    '/rto/:rto/assessment',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const choice = periodChoiceOf(request.query)
      const rule = filterOf(request.query).technicalRuleId
      const view = await consoleService.assessmentView(
        options.db,
        who.actor,
        choice,
        rule,
        pageNumberOf(request.query.page),
      )
      const frame = frameFor(
        request,
        reply,
        who.user,
        `RTO ${who.rto}: data quality assessment, ${choice.jurisdiction} ${choice.period}`,
        who.rto,
      )
      return html(
        reply,
        renderPage(
          'assessment',
          { ...frame, current: 'assessment' },
          {
            view,
            choice,
            rule,
            path: assessmentPath(who.rto, choice),
            statusPath: assessmentPath(who.rto, choice).replace('/assessment?', '/assessment/status?'),
            canReport: canDeclare(who.user), // requesting one takes vet:declare, as in the API
            periods: consoleService.recentPeriods(),
            jurisdictions: consoleService.JURISDICTIONS,
          },
        ),
      )
    },
  )

  // The period's assessment status for the page's live status script: the status and the page's own
  // rendering of it.
  app.get<{ Params: RtoParams; Querystring: { period?: string; jurisdiction?: string } }>(
    '/rto/:rto/assessment/status',
    { config, schema },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      const s = await consoleService.assessmentStatus(options.db, who.actor, periodChoiceOf(request.query))
      return reply
        .type('application/json; charset=utf-8')
        .send({ status: s.assessmentStatus, html: renderFragment('assessment-status', { s }) })
    },
  )

  // Request an assessment, or cancel the pending one (the API's POST and DELETE .../validate).
  for (const action of ['request', 'cancel'] as const) {
    app.post<{ Params: RtoParams; Body: Record<string, unknown> }>(
      action === 'request' ? '/rto/:rto/assessment' : '/rto/:rto/assessment/cancel',
      { config: formConfig, schema, preHandler: app.csrfProtection },
      async (request, reply) => {
        const who = requireRto(request, reply)
        if (!who) return reply
        // As the API's POST .../validate of a reporting period, which needs the vet:declare scope.
        if (!canDeclare(who.user)) throw new NotFoundError('Only the RTO’s authorised person requests an assessment.')
        const body = request.body ?? {}
        const choice = periodChoiceOf(body)
        // A request names its period exactly: never assess one the person did not choose.
        if (String(choice.period) !== body.period || choice.jurisdiction !== body.jurisdiction)
          throw new StructuralError([
            { accessPath: 'period', message: 'Choose one of the periods and jurisdictions offered.' },
          ])
        try {
          if (action === 'request') {
            await consoleService.assess(options, who.actor, choice)
            request.log.info({ rto: who.rto, ...choice, by: who.user.subject }, 'console: assessment requested')
            request.session.set('flash', {
              kind: 'success',
              text: `Assessment of ${choice.jurisdiction} ${choice.period} requested. Its status is shown below.`,
            })
          } else {
            await consoleService.cancelPeriodAssessment(options.db, who.actor, choice)
            request.log.info({ rto: who.rto, ...choice, by: who.user.subject }, 'console: assessment cancelled')
            request.session.set('flash', {
              kind: 'success',
              text: `The assessment of ${choice.jurisdiction} ${choice.period} was cancelled; the results of an earlier completed one, if any, stay.`,
            })
          }
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error
          request.session.set('flash', { kind: 'error', text: error.message })
        }
        return reply.redirect(assessmentPath(who.rto, choice), 303)
      },
    )
  }

  app.get<{ Params: RtoParams }>('/rto/:rto/declarations', { config, schema }, async (request, reply) => {
    const who = requireRto(request, reply)
    if (!who) return reply
    return declarationsPage(request, reply, who.user, who.rto, {})
  })

  app.post<{ Params: RtoParams; Body: Record<string, unknown> }>(
    '/rto/:rto/declarations',
    { config: formConfig, schema, preHandler: app.csrfProtection },
    async (request, reply) => {
      const who = requireRto(request, reply)
      if (!who) return reply
      if (!canDeclare(who.user)) throw new NotFoundError('Only the RTO’s authorised person declares.')
      const form = formOf(request.body)
      try {
        // The name and e-mail address come from the signed-in identity, never from the form.
        const checked = checkStructure(
          DeclarationRequest,
          {
            reportingPeriodNumber: /^\d{6}$/.test(form.period ?? '') ? Number(form.period) : form.period,
            jurisdiction: form.jurisdiction,
            declarationType: form.declarationType,
            ...(form.declarationType === 'Nil_activity_report' && form.dateOfLastReportableActivity
              ? { dateOfLastReportableActivity: form.dateOfLastReportableActivity }
              : {}),
            RTOAcceptanceOfDeclaration: form.accept === 'yes',
            RTOUserName: who.user.name,
            RTOUserEmailAddress: who.user.email ?? '',
          },
          '$',
        )
        if (checked.failures.length > 0) throw new StructuralError(checked.failures)
        const saved = await consoleService.makeDeclaration(options.db, who.actor, checked.value as DeclarationRequest)
        request.session.set('flash', { kind: 'success', text: saved.message })
        return reply.redirect(`${CONSOLE_PREFIX}/rto/${encodeURIComponent(who.rto)}/declarations`, 303)
      } catch (error) {
        if (error instanceof StructuralError)
          return declarationsPage(request, reply, who.user, who.rto, form, {
            errors: (error.extensions.errors ?? []).map((failure) => ({
              field: DECLARATION_FIELDS[failure.accessPath]?.id,
              label: DECLARATION_FIELDS[failure.accessPath]?.label ?? failure.accessPath,
              message: failure.message,
            })),
          })
        if (error instanceof ConflictError)
          return declarationsPage(request, reply, who.user, who.rto, form, { refusal: error.message })
        throw error
      }
    },
  )

  async function declarationsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    rto: string,
    form: Record<string, string>,
    problems: { errors?: FieldProblem[]; refusal?: string } = {},
  ) {
    const history = await consoleService.declarationHistory(options.db, actorFor(user, rto))
    const frame = frameFor(request, reply, user, `RTO ${rto}: declarations`, rto)
    const failed = problems.errors !== undefined || problems.refusal !== undefined
    return html(
      reply,
      renderPage(
        'declarations',
        { ...frame, current: 'declarations' },
        {
          history,
          form,
          problems,
          canDeclare: canDeclare(user),
          periods: consoleService.recentPeriods(),
          jurisdictions: consoleService.JURISDICTIONS,
        },
      ),
      failed ? (problems.refusal ? 409 : 400) : 200,
    )
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function pageNumberOf(value: string | undefined): number {
  const page = Number(value ?? 1)
  return Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1
}

function filterOf(query: ResultQuery) {
  const rule = typeof query.rule === 'string' && /^[A-Za-z0-9]{1,20}$/.test(query.rule) ? query.rule : undefined
  const type =
    typeof query.type === 'string' && (resourceTypes as readonly string[]).includes(query.type) ? query.type : undefined
  return { technicalRuleId: rule, resourceType: type }
}

interface FieldProblem {
  /** The form control the problem is about, if it is one of the form's. */
  field: string | undefined
  label: string
  message: string
}

/** The declaration's fields as the form names them: a problem is told against the control a person sees. */
const DECLARATION_FIELDS: Record<string, { id: string | undefined; label: string }> = {
  '$.reportingPeriodNumber': { id: 'period', label: 'Reporting period' },
  '$.jurisdiction': { id: 'jurisdiction', label: 'Jurisdiction' },
  '$.declarationType': { id: 'type-declaration', label: 'Type' },
  '$.dateOfLastReportableActivity': { id: 'last-activity', label: 'Date of last reportable activity' },
  '$.RTOAcceptanceOfDeclaration': { id: 'accept', label: 'Acceptance' },
  '$.RTOUserName': { id: undefined, label: 'Your name (from your sign-in)' },
  '$.RTOUserEmailAddress': { id: undefined, label: 'Your e-mail address (from your sign-in)' },
}

const FORM_FIELDS = ['period', 'jurisdiction', 'declarationType', 'dateOfLastReportableActivity', 'accept'] as const
function formOf(body: Record<string, unknown> | undefined): Record<string, string> {
  const form: Record<string, string> = {}
  for (const name of FORM_FIELDS) {
    const value = body?.[name]
    if (typeof value === 'string') form[name] = value.trim()
  }
  return form
}

/** Console errors are pages, not problem details: a person reads them. */
function installHtmlErrors(app: FastifyInstance): void {
  const page = (reply: FastifyReply, status: number, title: string, message: string) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(renderPage('error', { title }, { message }))

  app.setNotFoundHandler((request, reply) =>
    page(reply, 404, 'Page not found', `There is no console page ${request.url.split('?')[0]}.`),
  )
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code?.startsWith('FST_CSRF_'))
      return page(
        reply,
        403,
        'Form refused',
        'This form did not come from your current console session (it may have expired). Go back, reload the page and try again.',
      )
    if (error instanceof DomainError) {
      const status = problemTypes[error.kind].status
      if (error.kind === 'not-found') return page(reply, 404, 'Page not found', 'There is no such page for you.')
      return page(reply, status, problemTypes[error.kind].title, error.message)
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
      return page(reply, error.statusCode, 'Request refused', error.message)
    request.log.error({ err: error }, 'console page failed')
    return page(reply, 500, 'Something went wrong', 'The page could not be shown. Please try again in a moment.')
  })
}
