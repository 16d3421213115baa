// An RTO's held records: found by what people know them by (a name, client identifier, USI, unit or
// program code, location identifier), or by type and UID; a record's page shows the API's held state,
// its latest version's fields in full, its versions with what changed and the batches they came from,
// and its related records. The forms are GETs, so a search and a record's page are links.
import type { FastifyPluginAsync } from 'fastify'
import { resourceTypes } from '../../domain/resource-types.ts'
import { renderPage } from './console.views.ts'
import * as recordsService from './records.service.ts'
import type { ConsoleDependencies } from './console-shared.ts'
import { RecordQuery, RecordSearchQuery, readInput } from './console-input.ts'
import { fieldsOf, recordLabel } from './record-content.ts'
import { frameFor, html, only, pageRoute, rtoPersonOf } from './page-kit.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const recordPages: FastifyPluginAsync<ConsoleDependencies> = async (app, options) => {
  app.get<{ Params: { rto: string }; Querystring: Record<string, unknown> }>(
    '/rto/:rto/records',
    { ...pageRoute, preHandler: only.rtoReaders },
    async (request, reply) => {
      const who = rtoPersonOf(request)
      const asked = request.query.type !== undefined || request.query.uid !== undefined
      const query = readInput(RecordQuery, request.query)
      const search = readInput(RecordSearchQuery, request.query).q ?? ''
      const found =
        !asked && search !== '' ? await recordsService.recordSearch(options.readDb, who.actor, search) : undefined
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
      // The audit trail (issue 33): a record's page names the record; a search is recorded, never its words.
      request.auditNote =
        asked && problems.length === 0
          ? { action: 'console.record.view', recordType: resourceType!, recordId: resourceUID }
          : found
            ? { action: 'console.record.search' }
            : { action: null }
      const view =
        asked && problems.length === 0
          ? await recordsService.heldRecordView(options.readDb, who.actor, resourceType!, resourceUID, query.page ?? 1)
          : undefined
      const latest = view?.versions[0]
      const label = view && latest && recordLabel(view.state.resourceType, latest.body)
      const title = view
        ? `RTO ${who.rto}: ${view.state.resourceType} ${label ? label.title : view.state.resourceUID}`
        : found
          ? `RTO ${who.rto}: records found for “${search}”`
          : `RTO ${who.rto}: held records`
      const frame = frameFor(request, reply, who.user, title, who.rto)
      return html(
        reply,
        renderPage(
          'record',
          { ...frame, current: 'records' },
          {
            view,
            form: { type: resourceType ?? '', uid: resourceUID },
            problems,
            resourceTypes,
            search,
            found,
            shown: recordsService.SEARCH_RESULTS_SHOWN,
            content: { recordLabel, fieldsOf },
          },
        ),
        problems.length > 0 ? 400 : 200,
      )
    },
  )
}
