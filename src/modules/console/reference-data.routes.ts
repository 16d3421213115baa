// Reference data for every role: every dataset and classification, and a dataset's current records.
// Operators load a release of one from its page (reference-release.routes.ts).
import type { FastifyPluginAsync } from 'fastify'
import { renderPage } from './console.views.ts'
import * as referenceService from './reference.service.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { PagedQuery, readInput } from './console-input.ts'
import { frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

export const referenceDataPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  const page = { ...pageRoute, preHandler: only.signedIn }

  app.get('/reference-data', page, async (request, reply) => {
    const user = personOf(request)
    const datasets = await referenceService.referenceDatasets(options.readDb)
    const frame = frameFor(request, reply, user, 'Reference data', user.rto)
    return html(reply, renderPage('reference-datasets', { ...frame, current: 'reference-data' }, { datasets }))
  })

  app.get<{ Params: { dataset: string } }>('/reference-data/:dataset', page, async (request, reply) => {
    const user = personOf(request)
    const { dataset, records } = await referenceService.referenceRecords(
      options.readDb,
      request.params.dataset,
      readInput(PagedQuery, request.query).page ?? 1,
    )
    const frame = frameFor(request, reply, user, `Reference data: ${dataset.title}`, user.rto)
    return html(
      reply,
      renderPage(
        'reference-dataset',
        { ...frame, current: 'reference-data' },
        { dataset, records, mayLoadRelease: user.role === 'operator' },
      ),
    )
  })
}
