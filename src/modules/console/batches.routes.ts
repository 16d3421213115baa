// An RTO's transaction batches: the list, a batch with its failed results by rule (filtered, paged, as
// CSV), its live validation status, validating, cancelling and submitting it, and importing a zip of
// NAT files into a new batch with what the import answered and where its failures are in the files.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ConflictError, type ConflictReason } from '../../domain/errors.ts'
import { isProblem, problemTypes } from '../../platform/http/problem.ts'
import { resourceTypes } from '../../domain/resource-types.ts'
import { BATCH_SEARCH_RECORD_LIMIT } from '../batches/index.ts'
import { canReport } from './console-people.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as batchesService from './batches.service.ts'
import * as submitService from './submit-and-nat.service.ts'
import { type ConsoleDependencies, JURISDICTIONS } from './console-shared.ts'
import { failedResultsCsv } from './failed-results-csv.ts'
import { refusalInWords } from './console-words.ts'
import { BatchListQuery, NatImportForm, PagedQuery, ResultQuery, readInput, SubmitForm } from './console-input.ts'
import {
  audited,
  formRoute,
  frameFor,
  html,
  only,
  pageRoute,
  type RtoPerson,
  rtoPath,
  rtoPersonOf,
} from './page-kit.ts'

export interface BatchPagesOptions extends ConsoleDependencies {
  /** The NAT import's limits (LIMIT_NAT_ZIP_BYTES, LIMIT_NAT_FILES_BYTES), as the API's nat-import route. */
  natLimits: { natZipBytes: number; natFilesBytes: number }
}

type BatchPathParams = { rto: string; jurisdiction: string; token: string }

const batchRefOf = (params: BatchPathParams) => ({ token: params.token, jurisdiction: params.jurisdiction })
export const batchPath = (params: BatchPathParams) =>
  rtoPath(params.rto, `batches/${encodeURIComponent(params.jurisdiction)}/${encodeURIComponent(params.token)}`)

/** The failed results' filter a query asks for: a rule and a record type, each only when well formed. */
const filterOf = (query: unknown) => {
  const { rule, type } = readInput(ResultQuery, query)
  return { technicalRuleId: rule, resourceType: type }
}
const pageOf = (query: unknown) => readInput(PagedQuery, query).page ?? 1
/** Where a queued submit of the RTO is followed. */
const submitStatusPath = (rto: string, jurisdiction: string, submitId: string) =>
  rtoPath(rto, `submits/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(submitId)}`)

/** How a submit ended, as the batch's page says it: what is now held, or the refusal in words. */
function submitFlash(s: submitService.SubmitOutcome): { kind: 'success' | 'error'; text: string } {
  if (s.status === 'Submitted' && s.result)
    return { kind: 'success', text: `Submitted: ${s.result.numberOfRecordsSubmitted} records are now held.` }
  const problem = s.problem
  if (problem?.reason)
    return {
      kind: 'error',
      text: refusalInWords(new ConflictError(problem.reason as ConflictReason, problem.detail)),
    }
  return { kind: 'error', text: `Not submitted: ${problem?.detail ?? 'the submit did not finish.'}` }
}

/** The batch list's states as the filter offers them. */
const BATCH_STATE_NAMES = { 'not-submitted': 'Not submitted', submitted: 'Submitted' } as const

export const batchPages: FastifyPluginAsync<BatchPagesOptions> = async (app, options) => {
  const { natLimits } = options
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
      return reply
        .type('application/json; charset=utf-8')
        .send({ status: v?.validationStatus ?? 'None', html: renderFragment('validation-status', { v }) })
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

  for (const action of ['validate', 'cancel-validation', 'submit'] as const) {
    app.post<{ Params: BatchPathParams }>(
      `/rto/:rto/batches/:jurisdiction/:token/${action}`,
      audited(
        change,
        action === 'validate' ? 'validation.request' : action === 'submit' ? 'batch.submit' : 'validation.cancel',
      ),
      async (request, reply) => {
        const who = rtoPersonOf(request)
        const ref = batchRefOf(request.params)
        try {
          if (action === 'validate') {
            await batchesService.validateBatch(options, who.actor, ref)
            request.session.set('flash', { kind: 'success', text: 'Validation requested. Its status is shown below.' })
          } else if (action === 'cancel-validation') {
            await batchesService.cancelBatchValidation(options.db, who.actor, ref)
            request.session.set('flash', {
              kind: 'success',
              text: 'The validation was cancelled; the results of an earlier completed validation, if any, stay.',
            })
          } else {
            // Nothing submitted by mistake: a batch a NAT import left lines out of needs them acknowledged
            // (told here with the first problems; the API's submit checks the same count).
            const acknowledged = readInput(SubmitForm, request.body).acknowledgeDropped
            const refusal = await submitService.unacknowledgedNatProblems(options.db, who.actor, ref, acknowledged)
            if (refusal) request.session.set('flash', { kind: 'error', text: refusal })
            else {
              // A queued job: a submit that ends within a few seconds is answered on the batch's page as
              // before; a longer one goes to its status page. A second press finds the first's job.
              const s = await submitService.submit(options, who.actor, ref, acknowledged)
              if (s.status === 'Submitted' || s.status === 'Failed') request.session.set('flash', submitFlash(s))
              else return reply.redirect(submitStatusPath(who.rto, s.jurisdiction, s.submitId), 303)
            }
          }
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error
          request.session.set('flash', { kind: 'error', text: refusalInWords(error) })
        }
        return reply.redirect(batchPath(request.params), 303)
      },
    )
  }

  // A queued submit followed live: its status and stage, said again every 2 s with the script
  // (live-status.js), by the "Refresh the status" link without it; once it ends, what was submitted or why not.
  type SubmitParams = { rto: string; jurisdiction: string; submitId: string }
  const submitStatusOf = (request: FastifyRequest<{ Params: SubmitParams }>) =>
    submitService.submitProgress(
      options.db,
      rtoPersonOf(request).actor,
      request.params.jurisdiction,
      request.params.submitId,
    )

  app.get<{ Params: SubmitParams }>('/rto/:rto/submits/:jurisdiction/:submitId', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const s = await submitStatusOf(request)
    const frame = frameFor(request, reply, who.user, `Submit of batch ${s.transactionBatchToken}`, who.rto)
    return html(
      reply,
      renderPage(
        'submit-status',
        { ...frame, current: 'batches' },
        {
          s,
          path: submitStatusPath(who.rto, s.jurisdiction, s.submitId),
          pending: s.status === 'Queued' || s.status === 'Running',
          batchPath: batchPath({ rto: who.rto, jurisdiction: s.jurisdiction, token: s.transactionBatchToken }),
          refusal: s.status === 'Failed' ? submitFlash(s).text : undefined,
        },
      ),
    )
  })

  app.get<{ Params: SubmitParams }>(
    '/rto/:rto/submits/:jurisdiction/:submitId/status',
    page,
    async (request, reply) => {
      const s = await submitStatusOf(request)
      return reply
        .type('application/json; charset=utf-8')
        .send({ status: s.status, html: renderFragment('submit-progress', { s }) })
    },
  )

  // NAT zip upload: the API's NAT import (nat-bridge's importNatSet) into a new batch. The answer is
  // kept with the batch, so the post redirects to it (a reload never imports twice).
  const natImportPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    who: RtoPerson,
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
          jurisdictions: JURISDICTIONS,
          maxMiB: Math.floor(natLimits.natZipBytes / 1024 / 1024),
        },
      ),
      problem?.status ?? 200,
    )
  }

  app.get<{ Params: { rto: string } }>(
    '/rto/:rto/nat-import',
    { ...pageRoute, preHandler: only.rtoReporters },
    async (request, reply) => natImportPage(request, reply, rtoPersonOf(request)),
  )

  app.post<{ Params: { rto: string }; Body: Record<string, unknown> }>(
    '/rto/:rto/nat-import',
    {
      ...change,
      config: {
        ...formRoute.config,
        audit: 'nat.import',
        // The zip and a few small fields: the NAT import's limit, plus room for the form's framing.
        bodyLimits: { wireBodyBytes: natLimits.natZipBytes + 65_536, decodedBodyBytes: natLimits.natZipBytes + 65_536 },
      },
      bodyLimit: natLimits.natZipBytes + 65_537,
    },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const body = request.body ?? {}
      const { jurisdiction } = readInput(NatImportForm, body)
      const zip = body.zip instanceof Buffer ? new Uint8Array(body.zip) : new Uint8Array(0)
      if (!jurisdiction)
        return natImportPage(request, reply, who, {}, { status: 400, message: 'Choose the jurisdiction.' })
      try {
        // The import is a queued job: a small one has ended when this answers, and the page goes to
        // its answer (kept with the batch, so a reload never imports twice); a large one to its status.
        const status = await submitService.importNat(options, who.actor, jurisdiction, zip, natLimits)
        if (status.transactionBatchToken) request.auditNote = { batchToken: status.transactionBatchToken }
        if (status.status === 'Completed' && status.transactionBatchToken)
          return reply.redirect(
            `${batchPath({ rto: who.rto, jurisdiction, token: status.transactionBatchToken })}/nat-import`,
            303,
          )
        if (status.status === 'Failed' && status.problem)
          return natImportPage(
            request,
            reply,
            who,
            { jurisdiction },
            { status: problemTypes[status.problem.kind].status, message: status.problem.detail },
          )
        return reply.redirect(natImportStatusPath(who.rto, jurisdiction, status.importId), 303)
      } catch (error) {
        if (
          isProblem(error) &&
          (error.kind === 'nat-set-unreadable' ||
            error.kind === 'nat-set-too-large' ||
            error.kind === 'nat-organisation-mismatch')
        )
          return natImportPage(
            request,
            reply,
            who,
            { jurisdiction },
            { status: problemTypes[error.kind].status, message: error.message },
          )
        throw error
      }
    },
  )

  // A queued import followed live: its status and progress, said again every 2 s with the script
  // (live-status.js), by the "Refresh the status" link without it; once it ends, what it made or why not.
  const natImportStatusPath = (rto: string, jurisdiction: string, importId: string) =>
    rtoPath(rto, `nat-imports/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(importId)}`)
  type ImportParams = { rto: string; jurisdiction: string; importId: string }
  const importStatusOf = (request: FastifyRequest<{ Params: ImportParams }>) =>
    submitService.natImportProgress(
      options.db,
      rtoPersonOf(request).actor,
      request.params.jurisdiction,
      request.params.importId,
    )

  app.get<{ Params: ImportParams }>('/rto/:rto/nat-imports/:jurisdiction/:importId', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const s = await importStatusOf(request)
    const path = natImportStatusPath(who.rto, request.params.jurisdiction, request.params.importId)
    const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: NAT import`, who.rto)
    return html(
      reply,
      renderPage(
        'nat-import-status',
        { ...frame, current: 'nat-import' },
        {
          s,
          path,
          pending: s.status === 'Queued' || s.status === 'Running',
          batchPath: s.transactionBatchToken
            ? batchPath({ rto: who.rto, jurisdiction: s.jurisdiction, token: s.transactionBatchToken })
            : undefined,
        },
      ),
    )
  })

  app.get<{ Params: ImportParams }>(
    '/rto/:rto/nat-imports/:jurisdiction/:importId/status',
    page,
    async (request, reply) => {
      const s = await importStatusOf(request)
      return reply
        .type('application/json; charset=utf-8')
        .send({ status: s.status, html: renderFragment('nat-import-progress', { s }) })
    },
  )

  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/nat-import',
    page,
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const result = await submitService.natImportAnswer(options.db, who.actor, batchRefOf(request.params))
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

  app.get<{ Params: BatchPathParams }>(
    '/rto/:rto/batches/:jurisdiction/:token/nat-findings',
    page,
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const findings = await submitService.natFindingsPage(
        options.db,
        who.actor,
        batchRefOf(request.params),
        pageOf(request.query),
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
}
