// An RTO's held records: a record by type and UID, with the API's held state and related-resources.
// The form is a GET, so the page of a record is a link (from failed results, outcomes and related records).
import type { FastifyPluginAsync } from 'fastify'
import { resourceTypes } from '../../domain/resource-types.ts'
import { renderPage } from './console.views.ts'
import * as consoleService from './console.service.ts'
import { RecordQuery, readInput } from './console-input.ts'
import { frameFor, html, only, pageRoute, rtoPersonOf } from './page-kit.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const recordPages: FastifyPluginAsync<consoleService.ConsoleDependencies> = async (app, options) => {
  app.get<{ Params: { rto: string }; Querystring: Record<string, unknown> }>(
    '/rto/:rto/records',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const asked = request.query.type !== undefined || request.query.uid !== undefined
      const query = readInput(RecordQuery, request.query)
      const resourceType = resourceTypes.find((t) => t === query.type)
      const resourceUID = query.uid ?? ''
      const problems = asked
        ? [
            ...(resourceType ? [] : [{ field: 'type', message: 'Choose the record type.' }]),
            ...(UUID.test(resourceUID)
              ? []
              : [{ field: 'uid', message: 'Enter the record’s UID, a UUID such as 3f2c9a1e-…-…' }]),
          ]
        : []
      const view =
        asked && problems.length === 0
          ? await consoleService.heldRecordView(options.readDb, who.actor, resourceType!, resourceUID, query.page ?? 1)
          : undefined
      const title = view
        ? `RTO ${who.rto}: ${view.state.resourceType} ${view.state.resourceUID}`
        : `RTO ${who.rto}: a held record`
      const frame = frameFor(request, reply, who.user, title, who.rto)
      return html(
        reply,
        renderPage(
          'record',
          { ...frame, current: 'records' },
          { view, form: { type: resourceType ?? '', uid: resourceUID }, problems, resourceTypes },
        ),
        problems.length > 0 ? 400 : 200,
      )
    },
  )
}
