// The business-rule catalogue as a page, for every role: the same entries as GET
// /vet-provider/v1/business-rules and docs/business-rules.md, filtered on the server by scope, level,
// resource type and words of the text. A failed result's rule links here (#errorNumber).
import type { FastifyInstance } from 'fastify'
import { resourceTypes } from '../../domain/resource-types.ts'
import { catalogue, type CatalogueEntry } from '../rule-catalogue/index.ts'
import { renderPage } from './console.views.ts'
import { frameFor, html, only, pageRoute, personOf } from './page-kit.ts'

const SCOPES = ['record', 'set', 'assessment'] as const
const LEVELS = ['Error', 'Warning'] as const

export interface RuleFilter {
  scope?: (typeof SCOPES)[number] | undefined
  level?: (typeof LEVELS)[number] | undefined
  resourceType?: string | undefined
  words?: string | undefined
}

/** Only known values are kept: anything else in the query is as if not given. */
export function ruleFilterOf(query: Record<string, unknown>): RuleFilter {
  const pick = <T extends string>(allowed: readonly T[], value: unknown) =>
    allowed.find((candidate) => candidate === value)
  const words = typeof query.q === 'string' ? query.q.trim().slice(0, 100) : ''
  return {
    scope: pick(SCOPES, query.scope),
    level: pick(LEVELS, query.level),
    resourceType: pick(resourceTypes, query.type),
    words: words === '' ? undefined : words,
  }
}

export function filterRules(entries: CatalogueEntry[], filter: RuleFilter): CatalogueEntry[] {
  const words = filter.words?.toLowerCase().split(/\s+/) ?? []
  return entries.filter(
    (entry) =>
      (!filter.scope || entry.scope === filter.scope) &&
      (!filter.level || entry.validationMessageLevel === filter.level) &&
      (!filter.resourceType || entry.resourceTypes.includes(filter.resourceType)) &&
      words.every((word) =>
        [entry.technicalRuleId, entry.ruleId, entry.title, entry.description, entry.correctiveAction]
          .join(' ')
          .toLowerCase()
          .includes(word),
      ),
  )
}

export function ruleCataloguePages(app: FastifyInstance): void {
  app.get<{ Querystring: Record<string, unknown> }>(
    '/rules',
    { ...pageRoute, preHandler: only.signedIn },
    async (request, reply) => {
      const user = personOf(request)
      const all = catalogue()
      const filter = ruleFilterOf(request.query)
      const frame = frameFor(request, reply, user, 'Business rules', user.rto)
      return html(
        reply,
        renderPage(
          'rules',
          { ...frame, current: 'rules' },
          { rules: filterRules(all, filter), total: all.length, filter, scopes: SCOPES, levels: LEVELS, resourceTypes },
        ),
      )
    },
  )
}
