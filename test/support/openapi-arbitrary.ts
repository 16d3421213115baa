// fast-check arbitraries built from the served OpenAPI document: a request for an operation whose
// parameters and body follow the published schemas most of the time, and are mutated the rest of it
// (a value replaced by something hostile, a property dropped or added, a body that is not JSON at all).
import fc from 'fast-check'

export type Schema = Record<string, any>

export interface Operation {
  method: string
  path: string
  parameters: { name: string; in: 'path' | 'query' | 'header'; schema: Schema }[]
  bodyType: 'application/json' | 'application/x-www-form-urlencoded' | 'application/x-ndjson' | undefined
  bodySchema: Schema | undefined
}

export interface FuzzRequest {
  method: string
  /** The path with placeholders filled (already percent-encoded, or raw on purpose). */
  path: string
  query: string
  headers: Record<string, string>
  body: Uint8Array | string | undefined
}

/**
 * The value with every local reference (#/components/...) replaced by what it points at, so the
 * generators below see whole schemas. A reference inside its own target would never end: refused.
 */
export function resolveLocalRefs(value: unknown, document: Schema, resolving: string[] = []): any {
  if (Array.isArray(value)) return value.map((item) => resolveLocalRefs(item, document, resolving))
  if (value === null || typeof value !== 'object') return value
  const { $ref, ...rest } = value as Schema
  if (typeof $ref === 'string') {
    if (!$ref.startsWith('#/')) throw new Error(`not a local reference: ${$ref}`)
    if (resolving.includes($ref)) throw new Error(`recursive reference: ${[...resolving, $ref].join(' -> ')}`)
    const target = $ref
      .slice(2)
      .split('/')
      .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document)
    if (target === undefined) throw new Error(`unresolved reference: ${$ref}`)
    return {
      ...resolveLocalRefs(target, document, [...resolving, $ref]),
      ...resolveLocalRefs(rest, document, resolving),
    }
  }
  return Object.fromEntries(
    Object.entries(rest).map(([key, item]) => [key, resolveLocalRefs(item, document, resolving)]),
  )
}

export function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = []
  for (const [path, methods] of Object.entries<Schema>(document.paths)) {
    for (const [method, declared] of Object.entries<Schema>(methods)) {
      const operation = resolveLocalRefs(declared, document)
      const content = operation.requestBody?.content ?? {}
      const bodyType = Object.keys(content)[0] as Operation['bodyType']
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        bodyType,
        bodySchema: bodyType ? content[bodyType].schema : undefined,
      })
    }
  }
  return operations
}

/** Values that have broken services before: control characters, lone surrogates, odd numbers, sizes. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    ' x',
    'x ',
    'x\ty',
    '\u202e',
    '\uffff',
    '\ufeff',
    '',
    '%00',
    '%FF',
    '../..',
    'a'.repeat(5000),
    '0000-00-00',
    '2026-02-30',
    '9999-12-31',
    '2026-01-01T00:00:00Z',
    'null',
    '1e-400',
    -1,
    0,
    1.5,
    -0,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    false,
    null,
    [],
    {},
    [null],
    { '': '' },
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.jsonValue({ maxDepth: 2 }),
)

function dateText(min: number, max: number): fc.Arbitrary<string> {
  return fc.integer({ min, max }).map((day) => new Date(day * 86_400_000).toISOString().slice(0, 10))
}

/** Values that satisfy the schema (closely enough: patterns are followed, lengths are kept small). */
export function schemaValue(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 8) return fc.constant(null)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if ('const' in schema) return fc.constant(schema.const)
  const branches = schema.anyOf ?? schema.oneOf
  if (branches)
    return fc.oneof(
      ...branches.map((branch: Schema) =>
        schemaValue({ ...schema, anyOf: undefined, oneOf: undefined, ...branch }, depth + 1),
      ),
    )
  const type = Array.isArray(schema.type) ? fc.constantFrom(...schema.type) : fc.constant(schema.type)
  return type.chain((t: string | undefined) => {
    switch (t) {
      case 'null':
        return fc.constant(null)
      case 'boolean':
        return fc.boolean()
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 })
      case 'number':
        return fc.double({
          min: schema.minimum ?? 0,
          max: schema.maximum ?? 10_000,
          noNaN: true,
          noDefaultInfinity: true,
        })
      case 'array':
        return fc.array(schemaValue(schema.items, depth + 1), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 3, 3),
        })
      case 'object':
        return objectOf(schema, depth)
      case 'string':
        return stringOf(schema)
      default:
        return schema.properties ? objectOf(schema, depth) : fc.jsonValue({ maxDepth: 1 })
    }
  })
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.fromEntries(
    Object.entries<Schema>(schema.properties ?? {}).map(([name, property]) => [name, schemaValue(property, depth + 1)]),
  )
  return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((name: string) => name in properties) })
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid-v4':
    case 'uuid':
      return fc.uuid({ version: 4 })
    case 'date':
      return dateText(18_000, 21_000) // 2019 to 2027
    case 'utc-date-time':
    case 'date-time':
      return dateText(18_000, 21_000).map((day) => `${day}T00:00:00Z`)
    case 'email':
      return fc.constantFrom('alex.citizen@example.edu.au', 'a@b.co')
  }
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length <= (schema.maxLength ?? 64) && text.length >= (schema.minLength ?? 0))
  }
  return fc
    .string({ minLength: Math.max(1, schema.minLength ?? 1), maxLength: Math.min(schema.maxLength ?? 20, 20) })
    .map((text) => text.trim() || 'x')
}

/** Replaces, drops or adds one thing somewhere in a JSON value. */
export function mutated(value: unknown): fc.Arbitrary<unknown> {
  return fc.tuple(fc.nat(), hostileValue, fc.constantFrom('replace', 'drop', 'add')).map(([pick, hostile, how]) => {
    const copy = structuredClone(value)
    const containers: [Record<string, unknown> | unknown[], string | number][] = []
    const collect = (node: unknown) => {
      if (Array.isArray(node))
        node.forEach((item, index) => {
          containers.push([node, index])
          collect(item)
        })
      else if (node !== null && typeof node === 'object')
        for (const [key, item] of Object.entries(node)) {
          containers.push([node as Record<string, unknown>, key])
          collect(item)
        }
    }
    collect(copy)
    if (containers.length === 0) return hostile
    const [container, key] = containers[pick % containers.length]!
    if (how === 'drop' && !Array.isArray(container)) delete container[key as string]
    else if (how === 'add' && !Array.isArray(container)) container[`unexpected${pick % 7}`] = hostile
    else (container as Record<string | number, unknown>)[key] = hostile
    return copy
  })
}

const encoder = new TextEncoder()

/** Percent-encoding that also takes lone surrogates (sent as the replacement character's bytes). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
  }
}

/** A request for the operation; `fill` supplies values a run should mostly reach (a real batch token). */
export function requestOf(operation: Operation, fill: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path')
  const queryParameters = operation.parameters.filter((p) => p.in === 'query')

  const pathValue = (name: string, schema: Schema): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 6, arbitrary: (fill[name] ?? schemaValue(schema).map(String)).map(encode) },
      {
        weight: 1,
        arbitrary: hostileValue.map((value) => encode(typeof value === 'string' ? value : JSON.stringify(value))),
      },
      { weight: 1, arbitrary: fc.constantFrom('%FF', '%00', '%', 'a'.repeat(400), '%C0%80') }, // raw on purpose
    )
  const path = fc
    .tuple(...pathParameters.map((p) => pathValue(p.name, p.schema).map((value) => [p.name, value] as const)))
    .map((pairs) => pairs.reduce((text, [name, value]) => text.replace(`{${name}}`, value), operation.path))

  const queryValue = (schema: Schema): fc.Arbitrary<string[]> =>
    fc.oneof(
      {
        weight: 5,
        arbitrary: schemaValue(schema.type === 'array' ? schema.items : schema).map((value) => [String(value)]),
      },
      {
        weight: 1,
        arbitrary: fc.array(schemaValue(schema.type === 'array' ? schema.items : schema).map(String), {
          minLength: 2,
          maxLength: 3,
        }),
      },
      // A list parameter also takes its values comma-separated, and both forms mixed.
      ...(schema.type === 'array'
        ? [
            {
              weight: 1,
              arbitrary: fc.array(
                fc
                  .array(schemaValue(schema.items).map(String), { minLength: 1, maxLength: 3 })
                  .map((values) => values.join(',')),
                { minLength: 1, maxLength: 2 },
              ),
            },
          ]
        : []),
      {
        weight: 2,
        arbitrary: hostileValue.map((value) => [typeof value === 'string' ? value : JSON.stringify(value)]),
      },
    )
  const query = fc
    .tuple(
      ...queryParameters.map((p) =>
        fc.option(
          queryValue(p.schema).map((values) => values.map((value) => `${encode(p.name)}=${encode(value)}`).join('&')),
          { nil: undefined },
        ),
      ),
    )
    .map((parts) => parts.filter(Boolean).join('&'))

  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant('valid') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('none', 'Bearer x.y.z', 'Basic Zm9vOmJhcg==', 'bearer', `Bearer ${'a'.repeat(3000)}`),
    },
  )

  const body = bodyOf(operation)
  return fc.record({ path, query, auth, body }).map(({ path, query, auth, body }) => {
    const headers: Record<string, string> = { ...body.headers }
    if (auth !== 'none') headers.authorization = auth
    return { method: operation.method, path, query, headers, body: body.bytes }
  })
}

function bodyOf(
  operation: Operation,
): fc.Arbitrary<{ bytes: Uint8Array | string | undefined; headers: Record<string, string> }> {
  const json = (value: unknown) => ({
    bytes: JSON.stringify(value) ?? 'null',
    headers: { 'content-type': 'application/json' },
  })
  const odd = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes, headers: { 'content-type': 'application/json' } })),
    fc
      .constantFrom('', ' ', 'null', '[]', '{', '\ufeff{}', '{"a":1e-400}', '{"__proto__":{"x":1}}')
      .map((text) => ({ bytes: text, headers: { 'content-type': 'application/json' } })),
    fc
      .constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1', 'multipart/form-data')
      .map((type) => ({ bytes: '{}', headers: { 'content-type': type } })),
  )
  if (!operation.bodySchema) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant({ bytes: undefined, headers: {} }) },
      { weight: 1, arbitrary: odd },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map(json) },
    )
  }
  const valid = schemaValue(operation.bodySchema)
  if (operation.bodyType === 'application/x-www-form-urlencoded') {
    const form = (value: unknown) => ({
      bytes: Object.entries((value ?? {}) as Record<string, unknown>)
        .map(([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : JSON.stringify(v))}`)
        .join('&'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    return fc.oneof(
      valid.map(form),
      valid.chain(mutated).map(form),
      fc
        .constantFrom('client_id=%FF', 'a=%', 'grant_type=client_credentials&grant_type=x')
        .map((bytes) => ({ bytes, headers: { 'content-type': 'application/x-www-form-urlencoded' } })),
      odd,
    )
  }
  if (operation.bodyType === 'application/x-ndjson') {
    // The bulk upload: a few lines, each a valid or mutated line value, or text that is not lines of JSON.
    const ndjson = (text: string) => ({ bytes: text, headers: { 'content-type': 'application/x-ndjson' } })
    const lineText = fc.oneof(
      { weight: 3, arbitrary: valid.map((value) => JSON.stringify(value)) },
      { weight: 4, arbitrary: valid.chain(mutated).map((value) => JSON.stringify(value) ?? 'null') },
      { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '\ufeff{}', '{"a":1e-400}', ' ', '\r') },
    )
    return fc.oneof(
      {
        weight: 6,
        arbitrary: fc.array(lineText, { minLength: 1, maxLength: 4 }).map((lines) => ndjson(lines.join('\n'))),
      },
      { weight: 1, arbitrary: valid.map(json) },
      { weight: 1, arbitrary: odd },
    )
  }
  return fc.oneof(
    { weight: 3, arbitrary: valid.map(json) },
    { weight: 4, arbitrary: valid.chain(mutated).map(json) },
    { weight: 1, arbitrary: odd },
  )
}

export const bytesOf = (body: Uint8Array | string): Uint8Array =>
  typeof body === 'string' ? encoder.encode(body) : body
