// OpenAPI 3.1 generated from the route schemas, served at /openapi.json with interactive docs at /docs.
// Every route declares the problem responses it can give: protected routes 401, 403 and 429; routes
// with a body 400, 413 and 415; routes with path parameters 404; every route 500. A route declares
// its own 409. Every route may answer 503 (database unreachable, shutting down).
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { ALL_SCOPES } from '../auth/scopes.ts'
import { ProblemDetails } from './problem.ts'

const problem = (description: string) => ({ ...ProblemDetails, description })
/** A problem response a route declares itself (404 and 409 depend on what the route does). */
export const problemResponse = problem

type OpenApiDocument = { paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> }

/**
 * Error responses are sent as application/problem+json (RFC 9457), so that is how they are described;
 * the route schemas name only a body, which the generator files under application/json.
 */
function describeProblemsAsProblemJson(document: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json']
        if (!/^[45](\d\d|XX)$/.test(status) || json === undefined) continue
        response.content = { 'application/problem+json': json }
      }
    }
  }
  return document
}

export async function installOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  app.addHook('onRoute', (route) => {
    // Copies, never edits in place: a schema object may be shared by several routes.
    const schema = { ...route.schema } as Record<string, unknown> & { response?: Record<string, unknown>; security?: unknown; body?: unknown; querystring?: unknown; params?: unknown }
    if (schema.hide) return
    const responses: Record<string, unknown> = { ...schema.response }
    schema.response = responses
    route.schema = schema as FastifySchema
    const scope = route.config?.scope
    if (scope) {
      schema.security = [{ oauth2: [scope] }]
      responses['401'] ??= problem('Missing, malformed, expired or invalid access token (WWW-Authenticate: Bearer). Nothing was persisted.')
      responses['403'] ??= problem('The token lacks the required scope. Nothing was persisted.')
    }
    if (route.config?.rateLimit !== false) responses['429'] ??= problem('Rate limited: retry after Retry-After seconds, with back-off.')
    if (schema.body || schema.querystring || schema.params) {
      responses['400'] ??= problem('Structurally invalid request; every failure listed in errors. Nothing was stored.')
    }
    if (schema.params && scope) responses['404'] ??= problem('Not found: no such batch or record for the caller\'s RTO (another RTO\'s data is not found either).')
    if (schema.body) {
      responses['413'] ??= problem('Decompressed body above the limit (errorNumber BRTS90400). A body above the wire limit gets 413 with no body.')
      responses['415'] ??= problem('Unsupported Content-Type or Content-Encoding.')
    }
    responses['500'] ??= problem('Unexpected server error.')
    // Any operation can meet an unreachable database or a shutting-down process; the problem says
    // when to retry (Retry-After), and a client may repeat requests that are safe to repeat.
    responses['503'] ??= problem('The database cannot be reached, or the service is shutting down. Retry after Retry-After seconds, with back-off.')
  })

  await app.register(swagger, {
    transformObject: (document) => 'openapiObject' in document ? describeProblemsAsProblemJson(document.openapiObject as OpenApiDocument) : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vocational Training Reporting Service',
        version: '1.0.0',
        description: 'Record-by-record reporting of VET activity by student management systems acting for RTOs. Errors are RFC 9457 problem details; each problem type URI (/problems/{kind}) documents itself.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials. Send the token as Authorization: Bearer <token>.',
            flows: { clientCredentials: { tokenUrl: '/oauth2/token', scopes: Object.fromEntries(ALL_SCOPES.map((scope) => [scope, `scope ${scope}`])) } },
          },
        },
      },
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The page's own policy, replacing the API's "load nothing" one on /docs routes. Its HTML has no
    // inline script, so scripts stay 'self' only. Swagger UI sets some inline styles, hence
    // 'unsafe-inline' for styles alone (styles cannot run code). It may not be framed (clickjacking on
    // the "Authorize" dialog); no upgrade-insecure-requests, which would break plain-http development.
    staticCSP: {
      'default-src': ["'self'"],
      'base-uri': ["'self'"],
      'connect-src': ["'self'"],
      'font-src': ["'self'", 'data:'],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'img-src': ["'self'", 'data:'],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      'script-src-attr': ["'none'"],
      'style-src': ["'self'", "'unsafe-inline'"],
    },
  })
  app.get('/openapi.json', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () => app.swagger())
}
