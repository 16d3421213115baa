// Names for the OpenAPI document's shared schemas (components.schemas). A route schema keeps its
// object form for validation and serialisation; a schema given a name here is published once under
// that name and referenced ($ref) wherever a route uses it, so a generated client gets one type per
// resource, problem body, page and so on. The mark is an extension keyword that validators and
// serialisers ignore; src/platform/http/openapi.ts lifts marked schemas and removes the mark.
export const COMPONENT_NAME = 'x-component'

// The description a component is published with: that of the schema first given the name. A route
// may describe its use differently (a problem response, a page); that text stays on the response.
const descriptions = new Map<string, unknown>()

/** Gives the schema its component name (in place, at its definition) and returns it. */
export function named<Schema extends object>(name: string, schema: Schema): Schema {
  if (!descriptions.has(name)) descriptions.set(name, (schema as { description?: unknown }).description)
  return Object.assign(schema, { [COMPONENT_NAME]: name })
}

export function componentDescriptionOf(name: string): unknown {
  return descriptions.get(name)
}

/** A named copy, for a schema defined elsewhere that must stay as it is. */
export function namedCopy<Schema extends object>(name: string, schema: Schema): Schema {
  return named(name, { ...schema })
}

export function componentNameOf(schema: unknown): string | undefined {
  const name =
    schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>)[COMPONENT_NAME] : undefined
  return typeof name === 'string' ? name : undefined
}
