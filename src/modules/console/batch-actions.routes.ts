// A batch's actions: validating it, cancelling its validation and submitting it (the API's use cases,
// refusals said in words on the batch's page), and a queued submit's status page.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { ConflictError, type ConflictReason } from '../../domain/errors.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as batchesService from './batches.service.ts'
import * as submitService from './submit-and-nat.service.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { refusalInWords } from './console-words.ts'
import { readInput, SubmitForm } from './console-input.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, rtoPersonOf, liveStatus } from './page-kit.ts'
import { type BatchPathParams, batchPath, batchRefOf, submitStatusPath } from './batch-page-kit.ts'

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

export const batchActionPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.rtoReaders }
  const change = { ...formRoute, preHandler: [app.csrfProtection, only.rtoReporters] }

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
      return liveStatus(reply, s.status, renderFragment('submit-progress', { s }))
    },
  )
}
