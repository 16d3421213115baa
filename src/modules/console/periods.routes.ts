// An RTO's landing page: what is left to do for a reporting period and jurisdiction (a task list, each
// task linked to where it is done, with the declaration's due date and the days left), and below it
// where every period stands.
import type { FastifyPluginAsync } from 'fastify'
import { renderPage } from './console.views.ts'
import * as periodsService from './periods.service.ts'
import { type ConsoleDependencies, JURISDICTIONS, type PeriodChoice } from './console-shared.ts'
import { PeriodQuery, readInput } from './console-input.ts'
import { periodTaskList } from './period-tasks.ts'
import { frameFor, html, only, pageRoute, rtoPersonOf } from './page-kit.ts'

export const periodPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  app.get<{ Params: { rto: string } }>(
    '/rto/:rto/',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      // One set of reads for the whole page: the standings and the task list are made from it.
      const reads = await periodsService.readPeriods(options, who.actor)
      const standings = periodsService.periodStandings(reads)
      const periods = [...reads.periods]
      const asked = readInput(PeriodQuery, request.query)
      // Without a choice: the newest period not yet declared (else the newest) the RTO reported under.
      const fallback = standings.find((s) => s.declaration === null) ?? standings[0]
      const choice: PeriodChoice = {
        period:
          periods.find((p) => String(p) === asked.period) ??
          (asked.period === undefined ? fallback?.reportingPeriodNumber : undefined) ??
          periods[0]!,
        jurisdiction:
          asked.jurisdiction ?? (fallback?.jurisdiction as PeriodChoice['jurisdiction'] | undefined) ?? 'NSW',
      }
      const tasks = await periodTaskList(options, who.actor, choice, reads)
      const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: what is left to do`, who.rto)
      return html(
        reply,
        renderPage('home', { ...frame, current: 'home' }, { standings, tasks, periods, jurisdictions: JURISDICTIONS }),
      )
    },
  )
}
