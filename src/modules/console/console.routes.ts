// The web console under /console: the pages of RTO people and operators, server-rendered HTML that works
// without script, hidden from the OpenAPI document and guarded by the console session rather than a
// bearer token. This file wires what every page shares (the session plugin, the content security
// policy, the multipart form parser, HTML error pages, the stylesheet and scripts) and registers one
// plugin per area of pages: signing in, the RTO's periods, batches, records, quality and declarations,
// reference data and the operator's desk (docs/architecture.md, "The web console"). An RTO person
// asking for another RTO's pages, or a batch that is not their RTO's, gets 404, as an API client does.
import { readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify'
import multipart from '@fastify/multipart'
import type { ConsoleConfig } from '../../config/config.ts'
import { isProblem, problemTypes } from '../../platform/http/problem.ts'
import { createRelyingParty } from './console-sign-in.ts'
import { renderPage } from './console.views.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { installConsoleSession } from './console-session.plugin.ts'
import { builtInProviderClient, demoIdentityProviderRoutes } from './demo-identity-provider.routes.ts'
import { CONSOLE_PREFIX, pageRoute } from './page-kit.ts'
import { batchPages } from './batches.routes.ts'
import { batchActionPages } from './batch-actions.routes.ts'
import { natImportPages } from './nat-import.routes.ts'
import { operatorPages } from './operator.routes.ts'
import { calendarPages } from './calendar.routes.ts'
import { auditPages } from './audit.routes.ts'
import { periodPages } from './periods.routes.ts'
import { qualityPages } from './quality.routes.ts'
import { trendPages } from './trends.routes.ts'
import { recordPages } from './records.routes.ts'
import { referenceDataPages } from './reference-data.routes.ts'
import { referenceReleasePages } from './reference-release.routes.ts'
import { ruleCataloguePages } from './rules.routes.ts'
import { sessionPages } from './sessions.routes.ts'
import { signOffPages } from './sign-off.routes.ts'
import { signInPages } from './sign-in.routes.ts'
import { webhookPages } from './webhooks.routes.ts'

export { CONSOLE_PREFIX }

export interface ConsoleRouteOptions extends ConsoleDependencies {
  console: ConsoleConfig
  publicBaseUrl: string
  /** The NAT import's limits (LIMIT_NAT_ZIP_BYTES, LIMIT_NAT_FILES_BYTES), as the API's nat-import route. */
  natLimits: { natZipBytes: number; natFilesBytes: number }
}

const STYLESHEET = readFileSync(new URL('./assets/console.css', import.meta.url))
/** Live status of a batch's validation or a period's assessment (an enhancement; the pages work without it). No build step. */
const LIVE_STATUS_SCRIPT = readFileSync(new URL('./assets/live-status.js', import.meta.url))
const LOCAL_TIME_SCRIPT = readFileSync(new URL('./assets/local-time.js', import.meta.url))
/** Upload progress of the file forms (an enhancement; the forms post without it). */
const UPLOAD_PROGRESS_SCRIPT = readFileSync(new URL('./assets/upload-progress.js', import.meta.url))
/** What a long form (a batch's submit) is doing once sent (an enhancement; the forms post without it). */
const BUSY_FORMS_SCRIPT = readFileSync(new URL('./assets/busy-forms.js', import.meta.url))

export const consoleRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, options) => {
  const { publicBaseUrl, natLimits } = options
  const settings = options.console
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

  await installConsoleSession(app, { db: options.db, settings, secure: publicBaseUrl.startsWith('https://') })
  // The NAT zip upload is the console's only multipart form: its fields, the zip included, are read
  // into the body (so the CSRF check reads _csrf there), bounded by the NAT import's own zip limit.
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

  const asset = (path: string, type: string, body: Buffer) =>
    app.get(path, pageRoute, async (_request, reply) =>
      reply.type(`${type}; charset=utf-8`).header('cache-control', 'public, max-age=3600').send(body),
    )
  asset('/assets/console.css', 'text/css', STYLESHEET)
  asset('/assets/upload-progress.js', 'text/javascript', UPLOAD_PROGRESS_SCRIPT)
  asset('/assets/live-status.js', 'text/javascript', LIVE_STATUS_SCRIPT)
  asset('/assets/busy-forms.js', 'text/javascript', BUSY_FORMS_SCRIPT)
  asset('/assets/local-time.js', 'text/javascript', LOCAL_TIME_SCRIPT)

  await app.register(signInPages, {
    db: options.db,
    relyingParty,
    publicBaseUrl,
    demoProvider: builtIn !== undefined,
  })
  // The areas are given the use cases' dependencies only (never these options themselves, which carry
  // this plugin's own prefix: passed on, it would be added twice).
  const { db, readDb, queue, validationJob, reconcileJob, assessmentJob, natImportJob, submitJob } = options
  const deps = { db, readDb, queue, validationJob, reconcileJob, assessmentJob, natImportJob, submitJob }
  await app.register(periodPages, deps)
  await app.register(batchPages, deps)
  await app.register(batchActionPages, deps)
  await app.register(natImportPages, { ...deps, natLimits })
  await app.register(recordPages, deps)
  await app.register(qualityPages, deps)
  await app.register(signOffPages, deps)
  await app.register(trendPages, deps)
  await app.register(referenceDataPages, deps)
  await app.register(operatorPages, deps)
  await app.register(calendarPages, deps)
  await app.register(auditPages, deps)
  await app.register(webhookPages, deps)
  referenceReleasePages(app, options.db)
  ruleCataloguePages(app)
  sessionPages(app, options.db, settings.sessionIdleSeconds)
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
    if (isProblem(error)) {
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
