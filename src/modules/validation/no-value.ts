// No_value "has the same outcome as null" (spec: Resources and their fields, Reference lists), and null
// on an optional field is the field left out (docs/decisions.md, Schemas). So business rules never see
// No_value: before any rule looks at a record, every field whose code list carries No_value and holds
// it is taken out, and the record is the one the same upload without the field would have made. One
// normalisation for every rule, rather than a check in each: a rule written later cannot forget it.
// The fields are read from the upload schemas, so a code list that gains No_value is covered at once.
// Set rules read stored bodies in SQL; none of them reads such a field (test/rule-exactness.test.ts
// runs every rule on both forms of every such field and compares).
import type { ResourceType } from '../../domain/resource-types.ts'
import { resourceDefinitions } from '../resources/index.ts'

export const NO_VALUE = 'No_value'

/** A field path: property names, `[]` for every item of an array. */
type FieldPath = readonly string[]

interface SchemaNode {
  type?: unknown
  enum?: unknown[]
  properties?: Record<string, SchemaNode>
  items?: SchemaNode
  anyOf?: SchemaNode[]
}

function pathsWithNoValue(schema: SchemaNode, prefix: string[] = []): FieldPath[] {
  const found: FieldPath[] = []
  if (schema.enum?.includes(NO_VALUE)) found.push(prefix)
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    found.push(...pathsWithNoValue(property, [...prefix, name]))
  if (schema.items) found.push(...pathsWithNoValue(schema.items, [...prefix, '[]']))
  for (const branch of schema.anyOf ?? []) found.push(...pathsWithNoValue(branch, prefix))
  return found
}

/** Every field of each resource type whose code list carries No_value, as `a.b` / `a[].b` paths. */
export const noValueFields: Readonly<Record<ResourceType, readonly string[]>> = Object.fromEntries(
  resourceDefinitions.map(({ resourceType, schema }) => [
    resourceType,
    pathsWithNoValue(schema as SchemaNode).map((path) => path.join('.').replaceAll('.[]', '[]')),
  ]),
) as unknown as Record<ResourceType, readonly string[]>

const parsedPaths = new Map<string, FieldPath[]>(
  Object.entries(noValueFields).map(([type, paths]) => [
    type,
    paths.map((path) => path.replaceAll('[]', '.[]').split('.')),
  ]),
)

/**
 * The record as rules see it: every No_value of a field whose list carries it taken out (an array
 * item that is No_value is dropped from the array). The stored body is never changed; the copy
 * shares every part that holds no No_value, and a record without any is returned as it is.
 */
export function asRulesSeeIt<Body>(resourceType: string, body: Body): Body {
  let result: unknown = body
  for (const path of parsedPaths.get(resourceType) ?? []) result = without(result, path)
  return result as Body
}

/** The value with No_value taken out at the path; the same object when there was none. */
function without(value: unknown, path: FieldPath): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return value
  const [head, ...rest] = path as [string, ...string[]]
  if (head === '[]') {
    if (!Array.isArray(value)) return value
    const items =
      rest.length === 0 ? value.filter((item) => item !== NO_VALUE) : value.map((item) => without(item, rest))
    return items.length === value.length && items.every((item, i) => item === value[i]) ? value : items
  }
  const record = value as Record<string, unknown>
  if (!(head in record)) return value
  const child = record[head]
  if (rest.length === 0) {
    if (child !== NO_VALUE) return value
    const { [head]: _removed, ...others } = record
    return others
  }
  const changed = without(child, rest)
  return changed === child ? value : { ...record, [head]: changed }
}
