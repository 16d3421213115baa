// Data quality and declarations of an RTO: the data quality assessment of a period and jurisdiction
// (its status, live; requesting and cancelling it; its failed outcomes by rule), and the declarations
// (the history, each with the warnings acknowledged for it; declaring is the sign-off page's, sign-off.routes.ts).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ConflictError, StructuralError } from '../../domain/errors.ts'
import { actorFor, canDeclare, canReport, type ConsoleUser } from './console-people.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as qualityService from './quality.service.ts'
import { type ConsoleDependencies, JURISDICTIONS, type PeriodChoice, recentPeriods } from './console-shared.ts'
import { AssessmentQuery, PeriodForm, PeriodQuery, readInput } from './console-input.ts'
import { assessmentMessagesInWords, refusalInWords } from './console-words.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, rtoPath, rtoPersonOf, liveStatus } from './page-kit.ts'

/** The period and jurisdiction a query or form chose, each the first offered when it chose none of them. */
export const periodChoiceOf = (query: unknown): PeriodChoice => {
  const chosen = readInput(PeriodQuery, query)
  const periods = recentPeriods()
  return {
    period: periods.find((p) => String(p) === chosen.period) ?? periods[0]!,
    jurisdiction: chosen.jurisdiction ?? 'NSW',
  }
}
export const assessmentPath = (rto: string, choice: PeriodChoice) =>
  rtoPath(rto, `assessment?period=${choice.period}&jurisdiction=${choice.jurisdiction}`)

export const qualityPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.rtoReaders }

  app.get<{ Params: { rto: string } }>('/rto/:rto/assessment', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const choice = periodChoiceOf(request.query)
    const query = readInput(AssessmentQuery, request.query)
    const rule = query.rule
    const view = await qualityService.assessmentView(options.db, who.actor, choice, rule, query.page ?? 1)
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
          messages: assessmentMessagesInWords(view.status),
          choice,
          rule,
          path: assessmentPath(who.rto, choice),
          statusPath: assessmentPath(who.rto, choice).replace('/assessment?', '/assessment/status?'),
          canReport: canReport(who.user), // RTO staff and the authorised person request one
          signOffPath: rtoPath(who.rto, `declare?period=${choice.period}&jurisdiction=${choice.jurisdiction}`),
          periods: recentPeriods(),
          jurisdictions: JURISDICTIONS,
        },
      ),
    )
  })

  // The period's assessment status for the page's live status script: the status and the page's own
  // rendering of it.
  app.get<{ Params: { rto: string } }>('/rto/:rto/assessment/status', page, async (request, reply) => {
    const s = await qualityService.assessmentStatus(
      options.db,
      rtoPersonOf(request).actor,
      periodChoiceOf(request.query),
    )
    return liveStatus(reply, s.assessmentStatus, renderFragment('assessment-status', { s }))
  })

  // Request an assessment, or cancel the pending one (the API's POST and DELETE .../validate). The
  // API asks for the vet:declare scope; the console lets the RTO's staff do it too, since the person
  // fixing the data must be able to check it again (docs/decisions.md, "A sign-off worth signing").
  for (const action of ['request', 'cancel'] as const) {
    app.post<{ Params: { rto: string } }>(
      action === 'request' ? '/rto/:rto/assessment' : '/rto/:rto/assessment/cancel',
      audited(
        { ...formRoute, preHandler: [app.csrfProtection, only.rtoReporters] },
        action === 'request' ? 'assessment.request' : 'assessment.cancel',
      ),
      async (request, reply) => {
        const who = rtoPersonOf(request)
        const form = readInput(PeriodForm, request.body)
        const choice = periodChoiceOf(form)
        // A request names its period exactly: never assess one the person did not choose.
        if (String(choice.period) !== form.period || choice.jurisdiction !== form.jurisdiction)
          throw new StructuralError([
            { accessPath: 'period', message: 'Choose one of the periods and jurisdictions offered.' },
          ])
        try {
          if (action === 'request') {
            await qualityService.assess(options, who.actor, choice)
            request.log.info({ rto: who.rto, ...choice, by: who.user.subject }, 'console: assessment requested')
            request.session.set('flash', {
              kind: 'success',
              text: `Assessment of ${choice.jurisdiction} ${choice.period} requested. Its status is shown below.`,
            })
          } else {
            await qualityService.cancelPeriodAssessment(options.db, who.actor, choice)
            request.log.info({ rto: who.rto, ...choice, by: who.user.subject }, 'console: assessment cancelled')
            request.session.set('flash', {
              kind: 'success',
              text: `The assessment of ${choice.jurisdiction} ${choice.period} was cancelled; the results of an earlier completed one, if any, stay.`,
            })
          }
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error
          request.session.set('flash', { kind: 'error', text: refusalInWords(error, choice) })
        }
        return reply.redirect(assessmentPath(who.rto, choice), 303)
      },
    )
  }

  app.get<{ Params: { rto: string } }>('/rto/:rto/declarations', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    return declarationsPage(request, reply, who.user, who.rto)
  })

  async function declarationsPage(request: FastifyRequest, reply: FastifyReply, user: ConsoleUser, rto: string) {
    const history = await qualityService.declarationHistory(options.db, actorFor(user, rto))
    const frame = frameFor(request, reply, user, `RTO ${rto}: declarations`, rto)
    return html(
      reply,
      renderPage(
        'declarations',
        { ...frame, current: 'declarations' },
        {
          history: history.declarations,
          acknowledgements: history.acknowledgements,
          choice: periodChoiceOf(request.query),
          canDeclare: canDeclare(user),
          periods: recentPeriods(),
          jurisdictions: JURISDICTIONS,
        },
      ),
    )
  }
}
