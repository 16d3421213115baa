// HTTP wiring for the business-rule catalogue: every batch validation and data quality assessment rule.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Scopes } from '../../platform/auth/scopes.ts'
import { BusinessRuleCatalogue } from './rule-catalogue.schemas.ts'
import { catalogue } from './rule-catalogue.service.ts'

export const ruleCatalogueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const rules = catalogue()
  app.get(
    '/business-rules',
    {
      config: { scope: Scopes.report },
      schema: {
        tags: ['Validation'],
        summary: 'The business-rule catalogue',
        description:
          'Every batch validation rule and every data quality assessment rule, with its identifiers, level, scope, resource types and corrective action (also in docs/business-rules.md).',
        response: { 200: BusinessRuleCatalogue },
      },
    },
    async () => ({ numberOfRules: rules.length, rules }),
  )
}
