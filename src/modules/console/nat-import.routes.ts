// Importing a zip of NAT files into a new batch: the form, the queued import's status page, what the
// import answered (kept with the batch) and where the batch's failed results are in the files.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { isProblem, problemTypes } from '../../platform/http/problem.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as submitService from './submit-and-nat.service.ts'
import { type ConsoleDependencies, JURISDICTIONS } from './console-shared.ts'
import { NatImportForm, readInput } from './console-input.ts'
import {
  formRoute,
  frameFor,
  html,
  only,
  pageRoute,
  type RtoPerson,
  rtoPath,
  rtoPersonOf,
  liveStatus,
} from './page-kit.ts'
import { type BatchPathParams, batchPath, batchRefOf, pageOf } from './batch-page-kit.ts'

export interface NatImportPagesOptions extends ConsoleDependencies {
  /** The NAT import's limits (LIMIT_NAT_ZIP_BYTES, LIMIT_NAT_FILES_BYTES), as the API's nat-import route. */
  natLimits: { natZipBytes: number; natFilesBytes: number }
}

export const natImportPages: FastifyPluginAsync<NatImportPagesOptions> = async (app, options) => {
  const { natLimits } = options
  const page = { ...pageRoute, preHandler: only.rtoReaders }
  const change = { ...formRoute, preHandler: [app.csrfProtection, only.rtoReporters] }

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
      return liveStatus(reply, s.status, renderFragment('nat-import-progress', { s }))
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
