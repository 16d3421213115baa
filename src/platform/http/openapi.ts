// OpenAPI 3.1 generated from the route schemas, served at /openapi.json with interactive docs at /docs.
// Every route declares the problem responses it can give: protected routes 401, 403 and 429; routes
// with a body, and every POST, PUT, PATCH or DELETE (which reads a body if one is sent), 400, 413
// and 415; routes with path parameters 404; every route 500. A route declares its own 409. Every
// route may answer 503 (database unreachable, shutting down).
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { ALL_SCOPES } from '../auth/scopes.ts'
import { IDEMPOTENCY_HEADER } from './idempotency.ts'
import { ProblemDetails } from './problem.ts'
import { COMPONENT_NAME, componentDescriptionOf } from './schema-names.ts'

const problem = (description: string) => ({ ...ProblemDetails, description })
/** A problem response a route declares itself (404 and 409 depend on what the route does). */
export const problemResponse = problem

// The problem responses most operations share, published once under components.responses.
const STANDARD_PROBLEMS = {
  Unauthenticated: [
    '401',
    'Missing, malformed, expired or invalid access token (WWW-Authenticate: Bearer). Nothing was persisted.',
  ],
  InsufficientScope: ['403', 'The token lacks the required scope. Nothing was persisted.'],
  RateLimited: ['429', 'Rate limited: retry after Retry-After seconds, with back-off.'],
  StructurallyInvalid: ['400', 'Structurally invalid request; every failure listed in errors. Nothing was stored.'],
  NotFound: [
    '404',
    "Not found: no such batch or record for the caller's RTO (another RTO's data is not found either).",
  ],
  PayloadTooLarge: [
    '413',
    'Decompressed body above the limit (errorNumber BRTS90400). A body above the wire limit gets 413 with no body.',
  ],
  UnsupportedMediaType: ['415', 'Unsupported Content-Type or Content-Encoding.'],
  InternalError: ['500', 'Unexpected server error.'],
  // The POSTs that take an Idempotency-Key (platform/http/idempotency.ts).
  IdempotencyKeyReused: [
    '422',
    'The Idempotency-Key was used in the last 24 hours for a request with another method, path or body (/problems/idempotency-key-reused). Nothing was done.',
  ],
  IdempotencyKeyInProgress: [
    '409',
    'A request with this Idempotency-Key is still being processed (/problems/idempotency-key-in-progress): send it again after Retry-After seconds. Nothing was done.',
  ],
  // Any operation can meet an unreachable database or a shutting-down process; the problem says
  // when to retry (Retry-After), and a client may repeat requests that are safe to repeat.
  ServiceUnavailable: [
    '503',
    'The database cannot be reached, or the service is shutting down. Retry after Retry-After seconds, with back-off.',
  ],
} as const
const standard = (name: keyof typeof STANDARD_PROBLEMS) => problem(STANDARD_PROBLEMS[name][1])

/** The methods whose requests Fastify reads a body of (a GET's or HEAD's body is not parsed). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

type Json = Record<string, unknown>
type Parameter = { in?: string; required?: boolean; schema?: Json; style?: string; explode?: boolean }
type OpenApiDocument = {
  paths?: Record<
    string,
    Record<
      string,
      { parameters?: Parameter[]; responses?: Record<string, { content?: Record<string, unknown>; $ref?: string }> }
    >
  >
  components?: { schemas?: Record<string, Json> } & Json
}

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

/**
 * Query parameters as a generated client should send them. A list parameter (an array schema) is
 * style form, explode true: the parameter repeated for each value, which the service accepts besides
 * comma-separated values. A parameter with a default is optional, whatever the schema's required
 * list says (TypeBox lists a property with a default as required).
 */
function describeQueryParameters(document: OpenApiDocument): OpenApiDocument {
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue
        if (parameter.schema?.type === 'array') Object.assign(parameter, { style: 'form', explode: true })
        if (parameter.schema && 'default' in parameter.schema) parameter.required = false
      }
    }
  }
  return document
}

/**
 * Every schema given a name (src/platform/http/schema-names.ts) is published once under
 * components.schemas and referenced wherever it is used, innermost first, so a component refers to
 * the components inside it. Route schemas themselves are untouched: validation and serialisation
 * never see a $ref. Two different schemas under one name are a programming error, refused here.
 */
export function liftNamedSchemas(document: OpenApiDocument): OpenApiDocument {
  document.components ??= {}
  const components = document.components
  components.schemas ??= {}
  const schemas = components.schemas
  const shapes = new Map<string, string>()
  const lift = (node: unknown, mediaSchema: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => lift(item, false))
    if (node === null || typeof node !== 'object') return node
    const lifted: Json = {}
    for (const [key, value] of Object.entries(node)) lifted[key] = lift(value, key === 'schema')
    const name = lifted[COMPONENT_NAME]
    if (typeof name !== 'string') return lifted
    const { [COMPONENT_NAME]: _name, $id: _id, description, ...shape } = lifted
    const text = JSON.stringify(shape)
    const known = shapes.get(name)
    if (known === undefined) {
      shapes.set(name, text)
      const published = componentDescriptionOf(name) ?? description
      schemas[name] = published === undefined ? shape : { ...shape, description: published }
    } else if (known !== text) {
      throw new Error(`OpenAPI: two different schemas are named ${name}`)
    }
    const reference = { $ref: `#/components/schemas/${name}` }
    // A request or response body's own description is already on the request body or response.
    return description === undefined || mediaSchema || description === schemas[name]!.description
      ? reference
      : { ...reference, description }
  }
  document.paths = lift(document.paths, false) as OpenApiDocument['paths']
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
  return document
}

/** The standard problem responses, once under components.responses, referenced by every operation that gives them. */
function liftStandardProblems(document: OpenApiDocument): OpenApiDocument {
  const byStatusAndText = new Map(
    Object.entries(STANDARD_PROBLEMS).map(([name, [status, text]]) => [`${status} ${text}`, name]),
  )
  const shared: Record<string, Json> = {}
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, Json][]) {
        const name = byStatusAndText.get(`${status} ${String(response.description)}`)
        if (!name) continue
        shared[name] ??= response
        operation.responses![status] = { $ref: `#/components/responses/${name}` }
      }
    }
  }
  document.components = { ...document.components, responses: shared }
  return document
}

/**
 * The Idempotency-Key header, described once under components.parameters (as IdempotencyKey) and
 * referenced by every operation that takes it, under the name it is written with.
 */
function liftIdempotencyKeyParameter(document: OpenApiDocument): OpenApiDocument {
  let shared: Json | undefined
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      operation.parameters = operation.parameters?.map((parameter) => {
        const { name } = parameter as { name?: string }
        if (parameter.in !== 'header' || name?.toLowerCase() !== IDEMPOTENCY_HEADER) return parameter
        shared ??= { ...parameter, name: 'Idempotency-Key' }
        return { $ref: '#/components/parameters/IdempotencyKey' } as Parameter
      })
    }
  }
  if (shared) document.components = { ...document.components, parameters: { IdempotencyKey: shared } }
  return document
}

/** The document as published: problem bodies as problem+json, query parameters described, shared schemas, responses and parameters named. */
export function publishedDocument(document: OpenApiDocument): OpenApiDocument {
  return liftIdempotencyKeyParameter(
    liftStandardProblems(liftNamedSchemas(describeQueryParameters(describeProblemsAsProblemJson(document)))),
  )
}

export async function installOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  app.addHook('onRoute', (route) => {
    // Copies, never edits in place: a schema object may be shared by several routes.
    const schema = { ...route.schema } as Record<string, unknown> & {
      response?: Record<string, unknown>
      security?: unknown
      body?: unknown
      querystring?: unknown
      params?: unknown
    }
    if (schema.hide) return
    const responses: Record<string, unknown> = { ...schema.response }
    schema.response = responses
    route.schema = schema as FastifySchema
    const scope = route.config?.scope
    if (scope) {
      schema.security = [{ oauth2: [scope] }]
      responses['401'] ??= standard('Unauthenticated')
      responses['403'] ??= standard('InsufficientScope')
    }
    if (route.config?.rateLimit !== false) responses['429'] ??= standard('RateLimited')
    // A POST, PUT, PATCH or DELETE that takes no body still reads one if it is sent: a body that is
    // not empty is a 400, one too large once decompressed a 413, one of an unsupported type or
    // encoding a 415. So those are declared on every such operation, not only on those with a body.
    const readsBody = [route.method].flat().some((method) => BODY_METHODS.has(method))
    if (schema.body || schema.querystring || schema.params || readsBody)
      responses['400'] ??= standard('StructurallyInvalid')
    if (schema.params && scope) responses['404'] ??= standard('NotFound')
    if (schema.body || readsBody) {
      responses['413'] ??= standard('PayloadTooLarge')
      responses['415'] ??= standard('UnsupportedMediaType')
    }
    if (route.config?.idempotencyKey === true) {
      responses['422'] ??= standard('IdempotencyKeyReused')
      const own = responses['409'] as { description?: string } | undefined
      responses['409'] = own
        ? { ...own, description: `${own.description} ${STANDARD_PROBLEMS.IdempotencyKeyInProgress[1]}` }
        : standard('IdempotencyKeyInProgress')
    }
    responses['500'] ??= standard('InternalError')
    responses['503'] ??= standard('ServiceUnavailable')
  })

  await app.register(swagger, {
    // The document is OpenAPI 3.1, whose schemas are JSON Schema: `const` stays `const` (a value that
    // must be exactly true, RTOAcceptanceOfDeclaration), not the one-value enum OpenAPI 3.0 needed.
    convertConstToEnum: false,
    transformObject: (document) =>
      'openapiObject' in document
        ? publishedDocument(document.openapiObject as OpenApiDocument)
        : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vocational Training Reporting Service',
        version: '1.0.0',
        description:
          'Record-by-record reporting of VET activity by student management systems acting for RTOs. Errors are RFC 9457 problem details; each problem type URI (/problems/{kind}) documents itself.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials. Send the token as Authorization: Bearer <token>.',
            flows: {
              clientCredentials: {
                tokenUrl: '/oauth2/token',
                scopes: Object.fromEntries(ALL_SCOPES.map((scope) => [scope, `scope ${scope}`])),
              },
            },
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
  app.get('/openapi.json', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  )
}
