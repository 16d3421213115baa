// The authorised person's sign-off of a period (issue 32, item 4): one page to review each warning
// rule of the period's assessment (count, examples, the records behind it), acknowledge it with an
// optional explanation, read a summary of what is declared, and declare, confirming what it replaces.
// RTO staff and operators read the page; only the authorised person acknowledges and declares.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ConflictError, StructuralError } from '../../domain/errors.ts'
import { createStructuralCheck } from '../../platform/schema/structural-check.ts'
import {
  acknowledgeWarning,
  DeclarationRequest,
  declareAfterReview,
  MAX_EXPLANATION,
  SignOffRefusal,
} from '../declarations/index.ts'
import { canDeclare } from './console-people.ts'
import { renderPage } from './console.views.ts'
import { type ConsoleDependencies, JURISDICTIONS, type PeriodChoice, recentPeriods } from './console-shared.ts'
import { AcknowledgeForm, readInput, SignOffDeclarationForm } from './console-input.ts'
import { refusalInWords } from './console-words.ts'
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
import { assessmentPath, periodChoiceOf } from './quality.routes.ts'
import { signOffView } from './sign-off-view.ts'

const checkStructure = createStructuralCheck()

export const signOffPath = (rto: string, choice: PeriodChoice) =>
  rtoPath(rto, `declare?period=${choice.period}&jurisdiction=${choice.jurisdiction}`)

interface FieldProblem {
  /** The form control the problem is about, if it is one of the form's. */
  field: string | undefined
  label: string
  message: string
}

/** The declaration's fields as the form names them: a problem is told against the control a person sees. */
const DECLARATION_FIELDS: Record<string, { id: string | undefined; label: string }> = {
  '$.reportingPeriodNumber': { id: undefined, label: 'Reporting period' },
  '$.jurisdiction': { id: undefined, label: 'Jurisdiction' },
  '$.declarationType': { id: 'type-declaration', label: 'Type' },
  '$.dateOfLastReportableActivity': { id: 'last-activity', label: 'Date of last reportable activity' },
  '$.RTOAcceptanceOfDeclaration': { id: 'accept', label: 'Acceptance' },
  '$.RTOUserName': { id: undefined, label: 'Your name (from your sign-in)' },
  '$.RTOUserEmailAddress': { id: undefined, label: 'Your e-mail address (from your sign-in)' },
}

export const signOffPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const change = { ...formRoute, preHandler: [app.csrfProtection, only.rtoDeclarers] }

  app.get<{ Params: { rto: string } }>(
    '/rto/:rto/declare',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => signOffPage(request, reply, rtoPersonOf(request), periodChoiceOf(request.query), {}),
  )

  // Acknowledge one warning rule of the assessment the page showed (a newer one is reviewed afresh).
  app.post<{ Params: { rto: string } }>(
    '/rto/:rto/declare/acknowledge',
    audited(change, 'declaration.acknowledge-warning'),
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const form = readInput(AcknowledgeForm, request.body)
      const choice = periodChoiceOf(form)
      const path = signOffPath(who.rto, choice)
      const given = (request.body as Record<string, unknown> | undefined)?.explanation
      if (typeof given === 'string' && given.trim().length > MAX_EXPLANATION) {
        request.session.set('flash', {
          kind: 'error',
          text: `Not acknowledged: an explanation is at most ${MAX_EXPLANATION} characters (this one has ${given.trim().length}).`,
        })
        return reply.redirect(path, 303)
      }
      if (!form.run || !form.rule || String(choice.period) !== form.period || choice.jurisdiction !== form.jurisdiction)
        throw new StructuralError([{ accessPath: 'rule', message: 'Acknowledge a rule the page offers.' }])
      try {
        await acknowledgeWarning(options.db, who.actor, {
          ...choice,
          runId: form.run,
          technicalRuleId: form.rule,
          explanation: form.explanation ?? '',
          name: who.user.name,
        })
        request.log.info(
          { rto: who.rto, ...choice, rule: form.rule, by: who.user.subject },
          'console: warning acknowledged',
        )
        request.session.set('flash', { kind: 'success', text: `Rule ${form.rule} acknowledged.` })
      } catch (error) {
        if (!(error instanceof SignOffRefusal)) throw error
        request.session.set('flash', { kind: 'error', text: error.message })
      }
      return reply.redirect(`${path}#rule-${encodeURIComponent(form.rule)}`, 303)
    },
  )

  app.post<{ Params: { rto: string } }>(
    '/rto/:rto/declare',
    audited(change, 'declaration.make'),
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const form = readInput(SignOffDeclarationForm, request.body)
      const choice = periodChoiceOf(form)
      if (String(choice.period) !== form.period || choice.jurisdiction !== form.jurisdiction)
        throw new StructuralError([
          { accessPath: 'period', message: 'Choose one of the periods and jurisdictions offered.' },
        ])
      try {
        // The name and e-mail address come from the signed-in identity, never from the form.
        const checked = checkStructure(
          DeclarationRequest,
          {
            reportingPeriodNumber: choice.period,
            jurisdiction: choice.jurisdiction,
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
        const saved = await declareAfterReview(
          options.db,
          who.actor,
          checked.value as DeclarationRequest,
          form.replaces?.toLowerCase(),
        )
        request.log.info({ rto: who.rto, ...choice, by: who.user.subject }, 'console: declared')
        request.session.set('flash', { kind: 'success', text: saved.message })
        return reply.redirect(rtoPath(who.rto, 'declarations'), 303)
      } catch (error) {
        if (error instanceof StructuralError)
          return signOffPage(request, reply, who, choice, {
            form,
            errors: (error.extensions.errors ?? []).map((failure) => ({
              field: DECLARATION_FIELDS[failure.accessPath]?.id,
              label: DECLARATION_FIELDS[failure.accessPath]?.label ?? failure.accessPath,
              message: failure.message,
            })),
          })
        if (error instanceof SignOffRefusal)
          return signOffPage(request, reply, who, choice, {
            form,
            refusal: error.message,
            errors:
              error.kind === 'replacement-not-confirmed'
                ? [
                    {
                      field: 'replaces',
                      label: 'What it replaces',
                      message: 'confirm that this declaration replaces it',
                    },
                  ]
                : undefined,
          })
        if (error instanceof ConflictError)
          return signOffPage(request, reply, who, choice, { form, refusal: refusalInWords(error, choice) })
        throw error
      }
    },
  )

  async function signOffPage(
    request: FastifyRequest,
    reply: FastifyReply,
    who: RtoPerson,
    choice: PeriodChoice,
    problems: { form?: Record<string, string>; errors?: FieldProblem[] | undefined; refusal?: string },
  ) {
    const view = await signOffView(options, who.actor, choice)
    const frame = frameFor(
      request,
      reply,
      who.user,
      `RTO ${who.rto}: review and declare ${choice.jurisdiction} ${choice.period}`,
      who.rto,
    )
    const failed = problems.errors !== undefined || problems.refusal !== undefined
    return html(
      reply,
      renderPage(
        'sign-off',
        { ...frame, current: 'declarations' },
        {
          view,
          form: problems.form ?? {},
          problems,
          canDeclare: canDeclare(who.user),
          path: signOffPath(who.rto, choice),
          assessmentPath: assessmentPath(who.rto, choice),
          periods: recentPeriods(),
          jurisdictions: JURISDICTIONS,
        },
      ),
      failed ? (problems.refusal && !problems.errors ? 409 : 400) : 200,
    )
  }
}
