// Pictures of an RTO's data over time (issue 32, item 6): data quality per period and per rule, and the
// activity reported per period by type, each chart drawn as SVG with a table of its numbers.
import type { FastifyPluginAsync } from 'fastify'
import { renderPage } from './console.views.ts'
import { type ConsoleDependencies, JURISDICTIONS } from './console-shared.ts'
import { JurisdictionQuery, readInput } from './console-input.ts'
import { rtoTrends } from './console-trends.ts'
import { barChartSvg } from './svg-chart.ts'
import { frameFor, html, only, pageRoute, rtoPersonOf } from './page-kit.ts'

export const trendPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  app.get<{ Params: { rto: string } }>(
    '/rto/:rto/trends',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const asked = readInput(JurisdictionQuery, request.query).jurisdiction
      const trends = await rtoTrends(options.db, options.readDb, who.actor, asked)
      const frame = frameFor(request, reply, who.user, `RTO ${who.rto}: data quality and activity over time`, who.rto)
      return html(
        reply,
        renderPage(
          'trends',
          { ...frame, current: 'trends' },
          { trends, jurisdictions: JURISDICTIONS, svg: barChartSvg },
        ),
      )
    },
  )
}
