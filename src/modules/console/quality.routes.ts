// Data quality and declarations of an RTO: the data quality assessment of a period and jurisdiction
// (its status, live; requesting and cancelling it; its failed outcomes by rule), and the declarations
// (the history, and the authorised person's declaration form, checked with the API's own schema).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ConflictError, StructuralError } from '../../domain/errors.ts'
import { createStructuralCheck } from '../../platform/schema/structural-check.ts'
import { DeclarationRequest } from '../declarations/index.ts'
import { actorFor, canDeclare, type ConsoleUser } from './console-people.ts'
import { renderFragment, renderPage } from './console.views.ts'
import * as consoleService from './console.service.ts'
import { AssessmentQuery, DeclarationForm, PeriodForm, PeriodQuery, readInput } from './console-input.ts'
import { assessmentMessagesInWords, refusalInWords } from './console-words.ts'
import { audited, formRoute, frameFor, html, only, pageRoute, rtoPath, rtoPersonOf } from './page-kit.ts'

const checkStructure = createStructuralCheck()

/** The period and jurisdiction a query or form chose, each the first offered when it chose none of them. */
export const periodChoiceOf = (query: unknown): consoleService.PeriodChoice => {
  const chosen = readInput(PeriodQuery, query)
  const periods = consoleService.recentPeriods()
  return {
    period: periods.find((p) => String(p) === chosen.period) ?? periods[0]!,
    jurisdiction: chosen.jurisdiction ?? 'NSW',
  }
}
export const assessmentPath = (rto: string, choice: consoleService.PeriodChoice) =>
  rtoPath(rto, `assessment?period=${choice.period}&jurisdiction=${choice.jurisdiction}`)

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

export const qualityPages: FastifyPluginAsync<consoleService.ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.rtoReaders }

  app.get<{ Params: { rto: string } }>('/rto/:rto/assessment', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    const choice = periodChoiceOf(request.query)
    const query = readInput(AssessmentQuery, request.query)
    const rule = query.rule
    const view = await consoleService.assessmentView(options.db, who.actor, choice, rule, query.page ?? 1)
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
          canReport: canDeclare(who.user), // requesting one takes vet:declare, as in the API
          periods: consoleService.recentPeriods(),
          jurisdictions: consoleService.JURISDICTIONS,
        },
      ),
    )
  })

  // The period's assessment status for the page's live status script: the status and the page's own
  // rendering of it.
  app.get<{ Params: { rto: string } }>('/rto/:rto/assessment/status', page, async (request, reply) => {
    const s = await consoleService.assessmentStatus(
      options.db,
      rtoPersonOf(request).actor,
      periodChoiceOf(request.query),
    )
    return reply
      .type('application/json; charset=utf-8')
      .send({ status: s.assessmentStatus, html: renderFragment('assessment-status', { s }) })
  })

  // Request an assessment, or cancel the pending one (the API's POST and DELETE .../validate), which
  // needs the vet:declare scope: the authorised person's.
  for (const action of ['request', 'cancel'] as const) {
    app.post<{ Params: { rto: string } }>(
      action === 'request' ? '/rto/:rto/assessment' : '/rto/:rto/assessment/cancel',
      audited(
        { ...formRoute, preHandler: [app.csrfProtection, only.rtoDeclarers] },
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
          request.session.set('flash', { kind: 'error', text: refusalInWords(error, choice) })
        }
        return reply.redirect(assessmentPath(who.rto, choice), 303)
      },
    )
  }

  app.get<{ Params: { rto: string } }>('/rto/:rto/declarations', page, async (request, reply) => {
    const who = rtoPersonOf(request)
    return declarationsPage(request, reply, who.user, who.rto, {})
  })

  app.post<{ Params: { rto: string } }>(
    '/rto/:rto/declarations',
    audited({ ...formRoute, preHandler: [app.csrfProtection, only.rtoDeclarers] }, 'declaration.make'),
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const form = readInput(DeclarationForm, request.body)
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
        return reply.redirect(rtoPath(who.rto, 'declarations'), 303)
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
          return declarationsPage(request, reply, who.user, who.rto, form, {
            refusal: refusalInWords(error, { jurisdiction: form.jurisdiction ?? '', period: form.period ?? '' }),
          })
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
