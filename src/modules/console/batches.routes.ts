// An RTO's transaction batches: the list, discarding one not submitted, and a batch's page with its
// failed results by rule (filtered, paged, as CSV) and its live validation status. Validating,
// cancelling and submitting are batch-actions.routes.ts; importing NAT files, nat-import.routes.ts.
import type { FastifyPluginAsync } from 'fastify'
import { ConflictError } from '../../domain/errors.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { BATCH_SEARCH_RECORD_LIMIT } from '../batches/index.ts'
import { canReport } from './console-people.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as batchesService from './batches.service.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { failedResultsCsv } from './failed-results-csv.ts'
import { BatchListQuery, ResultQuery, readInput } from './console-input.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, rtoPath, rtoPersonOf, liveStatus } from './page-kit.ts'
import { type BatchPathParams, batchPath, batchRefOf, pageOf, submitStatusPath } from './batch-page-kit.ts'

/** The failed results' filter a query asks for: a rule and a record type, each only when well formed. */
const filterOf = (query: unknown) => {
  const { rule, type } = readInput(ResultQuery, query)
  return { technicalRuleId: rule, resourceType: type }
}

/** The batch list's states as the filter offers them. */
const BATCH_STATE_NAMES = { 'not-submitted': 'Not submitted', submitted: 'Submitted' } as const

export const batchPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.rtoReaders }
  const change = { ...formRoute, preHandler: [app.csrfProtection, only.rtoReporters] }

  app.get<{ Params: { rto: string } }>('/rto/:rto/batches', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const { state, token, q, page: pageNumber } = readInput(BatchListQuery, request.query)
    const holding = (q ?? '')
      .split(/\s+/)
      .filter((word) => word !== '')
      .slice(0, 5)
    // A search the list cannot run (a character no token has) is said, not silently dropped.
    const asked = (request.query as Record<string, unknown> | undefined)?.token
    const badToken = typeof asked === 'string' && asked.trim() !== '' && token === undefined
    const status = state === undefined ? undefined : state === 'submitted' ? 'Submitted' : 'NotSubmitted'
    const batches = await batchesService.batchesPage(
      options.db,
      who.actor,
      { status, tokenPrefix: token, holding },
      pageNumber ?? 1,
    )
    const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: transaction batches`, who.rto)
    return html(
      reply,
      renderPage(
        'batches',
        { ...frame, current: 'batches' },
        {
          page: batches,
          filter: {
            state,
            token: badToken ? String(asked).slice(0, 100) : token,
            q: holding.length > 0 ? q : undefined,
          },
          badToken,
          states: BATCH_STATE_NAMES,
          searchLimit: BATCH_SEARCH_RECORD_LIMIT,
        },
      ),
    )
  })

  // Discarding a batch not submitted: a confirmation page, then the API's discard (DELETE on a batch).
  // RTO people only; an operator gets 404 as for every change.
  const discard = { ...pageRoute, preHandler: only.rtoReporters }
  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/discard',
    discard,
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const batch = await batchesService.batchOf(options.db, who.actor, batchRefOf(request.params))
      if (batch.status !== 'NotSubmitted') {
        request.session.set('flash', { kind: 'error', text: 'A submitted batch is kept: it cannot be discarded.' })
        return reply.redirect(batchPath(request.params), 303)
      }
      const frame = frameFor(request, reply, who.user, `Discard batch ${request.params.token}`, who.rto)
      return html(
        reply,
        renderPage('batch-discard', { ...frame, current: 'batches' }, { batch, path: batchPath(request.params) }),
      )
    },
  )

  app.post<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/discard',
    audited(change, 'batch.discard'),
    async (request, reply) => {
      const who = rtoPersonOf(request)
      try {
        await batchesService.discardBatch(options.db, who.actor, batchRefOf(request.params))
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error
        request.session.set('flash', { kind: 'error', text: 'A submitted batch is kept: it cannot be discarded.' })
        return reply.redirect(batchPath(request.params), 303)
      }
      request.log.info({ rto: who.rto, by: who.user.subject }, 'console: batch discarded')
      request.session.set('flash', {
        kind: 'success',
        text: `Batch ${request.params.token} was discarded, with its records and validation results.`,
      })
      return reply.redirect(rtoPath(who.rto, 'batches'), 303)
    },
  )

  // A batch's page and its CSV show failed results, which quote record values: audited as the API's list is.
  const resultsPage = audited(page, 'validation.results.read')
  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token',
    resultsPage,
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const filter = filterOf(request.query)
      const view = await batchesService.batchView(
        options.db,
        who.actor,
        batchRefOf(request.params),
        filter,
        pageOf(request.query),
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
            submitPath: view.submitUnderWay
              ? submitStatusPath(who.rto, view.batch.jurisdiction, view.submitUnderWay)
              : undefined,
          },
        ),
      )
    },
  )

  // The batch's validation status for the page's live status script: the status and the page's own
  // rendering of it.
  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/status',
    page,
    async (request, reply) => {
      const v = await batchesService.validationStatusOf(
        options.db,
        rtoPersonOf(request).actor,
        batchRefOf(request.params),
      )
      return liveStatus(reply, v?.validationStatus ?? 'None', renderFragment('validation-status', { v }))
    },
  )

  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/failed-results.csv',
    resultsPage,
    async (request, reply) => {
      const ref = batchRefOf(request.params)
      const results = batchesService.allFailedResults(
        options.db,
        rtoPersonOf(request).actor,
        ref,
        filterOf(request.query),
      )
      const first = await results.next() // a batch without a completed validation is refused before any byte is sent
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="failed-results-${ref.token}.csv"`)
        .send(failedResultsCsv(first, results))
    },
  )
}
