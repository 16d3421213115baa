// An RTO's landing page: where each reporting period and jurisdiction stands.
import type { FastifyPluginAsync } from 'fastify'
import { renderPage } from './console.views.ts'
import * as consoleService from './console.service.ts'
import { frameFor, html, only, pageRoute, rtoPersonOf } from './page-kit.ts'

export const periodPages: FastifyPluginAsync<consoleService.ConsoleDependencies> = async (app, options) => {
  app.get<{ Params: { rto: string } }>(
    '/rto/:rto/',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const standings = await consoleService.periodStandings(options, who.actor)
      const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: where each period stands`, who.rto)
      return html(reply, renderPage('home', { ...frame, current: 'home' }, { standings }))
    },
  )
}
