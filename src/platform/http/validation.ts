// Fastify's own per-part validation with the platform's Ajv settings (platform/schema/ajv.ts). The
// service switches it off for its one request hook (request-validation.ts); only the benchmark's bare
// route uses this.
import type { ValidateFunction } from 'ajv'
import type { FastifyInstance } from 'fastify'
import { createAjv } from '../schema/ajv.ts'

/** Fastify's own per-part validation with the platform's Ajv settings: only the benchmark's bare route uses it. */
export function installValidators(app: FastifyInstance): void {
  const strict = createAjv(false)
  const coercing = createAjv(true)
  const cache = new WeakMap<object, ValidateFunction>()
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    const key = schema as object
    const compiled = (httpPart === 'body' ? undefined : cache.get(key)) ?? ajv.compile(schema)
    if (httpPart !== 'body') cache.set(key, compiled)
    return compiled
  })
}
