// Request validation: the string rules, then the schema, for path, query and body together, so one
// 400 lists every failure of the request (Fastify on its own stops at the first failing part).
// Fastify's per-part validation is switched off; this hook is the only validation, except for a route
// that checks its own body with the same check (createStructuralCheck, platform/schema): the bulk
// upload, line by line.
import type { FastifyInstance } from 'fastify'
import { StructuralError, type FieldError } from '../../domain/errors.ts'
import { childPath } from '../schema/strings.ts'
import { createStructuralCheck } from '../schema/structural-check.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks its body itself (with createStructuralCheck); the request hook checks only path and query. */
    checksOwnBody?: boolean
  }
}

type Part = 'params' | 'querystring' | 'body'
const PARTS: { part: Part; root: string; coerce: boolean }[] = [
  { part: 'params', root: 'path', coerce: true }, // path and query arrive as text: converted to the schema's types
  { part: 'querystring', root: 'query', coerce: true },
  { part: 'body', root: '$', coerce: false }, // JSON bodies are not converted: "5" is not 5
]

type ObjectSchema = { properties?: Record<string, { type?: unknown }> }

/**
 * List query parameters (those whose schema is an array) arrive as a repeated parameter
 * (reportingPeriods=202603&reportingPeriods=202604, what generated clients send for an array), as
 * comma-separated values (reportingPeriods=202603,202604), or both mixed: each becomes one array of
 * the values, so the schema checks the items and access paths name them (query.reportingPeriods[1]).
 */
export function splitListParameters(query: unknown, schema: ObjectSchema | undefined): unknown {
  if (!schema?.properties || query === null || typeof query !== 'object') return query
  let split: Record<string, unknown> | undefined
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = (query as Record<string, unknown>)[name]
    if (property.type !== 'array' || value === undefined) continue
    split ??= { ...query }
    split[name] = (Array.isArray(value) ? value : [value]).flatMap((item) =>
      typeof item === 'string' ? item.split(',') : [item],
    )
  }
  return split ?? query
}

function unexpectedBody(body: unknown): FieldError[] {
  if (body === undefined) return []
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return [{ accessPath: '$', message: 'must be absent or an empty JSON object: this operation takes no body' }]
  return Object.keys(body).map((key) => ({ accessPath: childPath('$', key), message: 'is not a known property' }))
}

export function installRequestValidation(app: FastifyInstance): void {
  const check = createStructuralCheck()
  app.setValidatorCompiler(() => () => true)
  app.addHook('preValidation', async (request) => {
    const schemas = (request.routeOptions.schema ?? {}) as Partial<Record<Part, object>>
    // A route that checks its own body (the bulk upload, line by line, with createStructuralCheck)
    // has only its path and query checked here.
    const ownBody = request.routeOptions.config.checksOwnBody === true
    const failures: FieldError[] = []
    for (const { part, root, coerce } of PARTS) {
      if (part === 'body' && ownBody) continue
      const key = part === 'querystring' ? 'query' : part
      let value = (request as unknown as Record<string, unknown>)[key]
      const schema = schemas[part]
      if (part === 'querystring') value = splitListParameters(value, schema as ObjectSchema | undefined)
      const checked = check(schema, value, root, coerce)
      failures.push(...checked.failures)
      if (schema) (request as unknown as Record<string, unknown>)[key] = checked.value
    }
    // A route that declares no body takes none: nothing at all, or an empty JSON object (what many
    // HTTP clients send for a POST that carries nothing). Anything else is a mistake worth saying.
    if (!schemas.body && !ownBody) failures.push(...unexpectedBody(request.body))
    if (failures.length > 0) throw new StructuralError(failures)
  })
}
