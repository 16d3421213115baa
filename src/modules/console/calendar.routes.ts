// The collection calendar (operators): each reporting period's due date under a jurisdiction (the
// spec's rule, or a date operators set) and the extensions given to RTOs, which the API's due dates,
// late flags and overdue messages then follow (declarations' calendar.service.ts). Forms are
// CSRF-checked and answer refused fields in the GOV.UK error pattern: a summary at the top linking to
// each field, the field's own message, aria-invalid and aria-describedby. RTO people get 404.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Jurisdiction } from '../../domain/jurisdictions.ts'
import { toPage } from '../../domain/page.ts'
import type { ConsoleUser } from './console-people.ts'
import { renderPage } from './console.views.ts'
import * as operatorService from './operator.service.ts'
import { type ConsoleDependencies, JURISDICTIONS, recentPeriods } from './console-shared.ts'
import { CalendarForm, CalendarQuery, readInput } from './console-input.ts'
import { audited, CONSOLE_PREFIX, formRoute, frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

type FormName = 'due-date' | 'extension'

interface FormState {
  name: FormName
  values: Record<string, string>
  problems: { field: string; message: string }[]
}

const calendar = operatorService.collectionCalendar

/** Extensions a page of the calendar shows. */
const EXTENSIONS_PAGE_SIZE = 50

export const calendarPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.operators }
  const form = { ...formRoute, preHandler: [app.csrfProtection, only.operators] }
  const pathOf = (jurisdiction: string) => `${CONSOLE_PREFIX}/calendar?jurisdiction=${encodeURIComponent(jurisdiction)}`

  const calendarPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ConsoleUser,
    jurisdiction: Jurisdiction,
    state?: FormState,
    pageNumber = 1,
  ) => {
    const view = await calendar.of(options.db, jurisdiction)
    // A national collection gives hundreds of extensions a period: a page of them at a time, each row
    // with its own withdraw form.
    const start = (pageNumber - 1) * EXTENSIONS_PAGE_SIZE
    const extensions = toPage(view.extensions.slice(start, start + EXTENSIONS_PAGE_SIZE), view.extensions.length, {
      pageNumber,
      pageSize: EXTENSIONS_PAGE_SIZE,
    })
    const title = `${state ? 'Error: ' : ''}The collection calendar: ${jurisdiction}`
    const frame = frameFor(request, reply, user, title)
    return html(
      reply,
      renderPage(
        'calendar',
        { ...frame, current: 'calendar' },
        {
          view,
          extensions,
          jurisdiction,
          jurisdictions: JURISDICTIONS,
          state,
          defaultPeriod: String(recentPeriods()[0]),
        },
      ),
      state ? 400 : 200,
    )
  }

  const jurisdictionOf = (value: string | undefined): Jurisdiction =>
    (JURISDICTIONS as readonly string[]).includes(value ?? '') ? (value as Jurisdiction) : 'NSW'

  app.get('/calendar', page, async (request, reply) => {
    const query = readInput(CalendarQuery, request.query)
    return calendarPage(request, reply, personOf(request), query.jurisdiction ?? 'NSW', undefined, query.page ?? 1)
  })

  const refused = (request: FastifyRequest, reply: FastifyReply, name: FormName, error: unknown) => {
    if (!(error instanceof calendar.InputError)) throw error
    const input = readInput(CalendarForm, request.body)
    const values = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)]))
    return calendarPage(request, reply, personOf(request), jurisdictionOf(input.jurisdiction), {
      name,
      values,
      problems: error.problems,
    })
  }

  app.post('/calendar/due-date', audited(form, 'calendar.due-date.set'), async (request, reply) => {
    const user = personOf(request)
    const input = readInput(CalendarForm, request.body)
    try {
      const set = await calendar.setDueDate(options.db, input, user.name)
      request.log.info(
        { jurisdiction: set.jurisdiction, period: set.period, by: user.subject },
        'console: period due date set',
      )
      request.session.set('flash', {
        kind: 'success',
        text: `Declarations for ${set.jurisdiction} ${set.period} are now due on ${set.dueDate}, for every RTO without an extension.`,
      })
      return reply.redirect(pathOf(set.jurisdiction), 303)
    } catch (error) {
      return refused(request, reply, 'due-date', error)
    }
  })

  app.post('/calendar/due-date/clear', audited(form, 'calendar.due-date.clear'), async (request, reply) => {
    const user = personOf(request)
    const input = readInput(CalendarForm, request.body)
    const jurisdiction = jurisdictionOf(input.jurisdiction)
    const period = Number(input.period)
    const cleared = Number.isInteger(period) && (await calendar.clearDueDate(options.db, jurisdiction, period))
    request.log.info({ jurisdiction, period, by: user.subject, cleared }, 'console: period due date cleared')
    request.session.set(
      'flash',
      cleared
        ? { kind: 'success', text: `Declarations for ${jurisdiction} ${period} are due by the rule again.` }
        : { kind: 'error', text: `${jurisdiction} ${input.period ?? ''} had no due date set: nothing changed.` },
    )
    return reply.redirect(pathOf(jurisdiction), 303)
  })

  app.post('/calendar/extensions', audited(form, 'calendar.extension.grant'), async (request, reply) => {
    const user = personOf(request)
    const input = readInput(CalendarForm, request.body)
    try {
      const granted = await calendar.grantExtension(options.db, input, user.name)
      request.log.info(
        { rto: granted.rto, jurisdiction: granted.jurisdiction, period: granted.period, by: user.subject },
        'console: declaration due date extended',
      )
      request.session.set('flash', {
        kind: 'success',
        text: `RTO ${granted.rto}’s declaration for ${granted.jurisdiction} ${granted.period} is now due on ${granted.dueDate}.`,
      })
      return reply.redirect(pathOf(granted.jurisdiction), 303)
    } catch (error) {
      return refused(request, reply, 'extension', error)
    }
  })

  app.post('/calendar/extensions/withdraw', audited(form, 'calendar.extension.withdraw'), async (request, reply) => {
    const user = personOf(request)
    const input = readInput(CalendarForm, request.body)
    const jurisdiction = jurisdictionOf(input.jurisdiction)
    const period = Number(input.period)
    const rto = input.rto ?? ''
    const withdrawn =
      Number.isInteger(period) && (await calendar.withdrawExtension(options.db, rto, jurisdiction, period))
    request.log.info({ rto, jurisdiction, period, by: user.subject, withdrawn }, 'console: extension withdrawn')
    request.session.set(
      'flash',
      withdrawn
        ? { kind: 'success', text: `RTO ${rto}’s extension for ${jurisdiction} ${period} is withdrawn.` }
        : {
            kind: 'error',
            text: `RTO ${rto} had no extension for ${jurisdiction} ${input.period ?? ''}: nothing changed.`,
          },
    )
    return reply.redirect(pathOf(jurisdiction), 303)
  })
}
