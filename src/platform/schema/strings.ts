// The specification's string rules, applied to every string (and property name) in a body, path or
// query before schema validation: leading or trailing spaces are rejected; tabs, line breaks and
// non-ASCII whitespace are rejected anywhere; spaces inside are accepted. Enum values are the
// exception: surrounding spaces are trimmed and the value accepted (the spec allows it; clients should
// not rely on it).
// Text that is not plain Unicode text is refused too (docs/decisions.md, "Characters refused in
// text"): control characters (NUL cannot even be stored), lone UTF-16 surrogates (not Unicode at all),
// noncharacters, and the bidirectional embedding, override and isolate controls, which reorder how a
// name or identifier is displayed without changing what it says.
import type { FieldError } from '../../domain/errors.ts'

/**
 * A number in a JSON body that a double cannot hold: too large (Infinity) or rounded to zero. The
 * JSON body parser (platform/http/body-parsers.ts) puts it in place of the number; the string rules
 * report it with its access path.
 */
export class OutOfRangeNumber {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

type JsonSchema = Record<string, unknown> & {
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  additionalProperties?: boolean | JsonSchema
}

// \s covers tab, line feed, carriage return, vertical tab, form feed and the Unicode spaces; NEL,
// Mongolian vowel separator and zero-width space are added since they read as whitespace too.
const FORBIDDEN_WHITESPACE = /[^\S ]|[\u0085\u180e\u200b]/
// Anything outside printable ASCII needs the closer look below; nearly every value takes only this test.
const NOT_PRINTABLE_ASCII = /[^ -~]/
const LONE_SURROGATE = /\p{Surrogate}/u
const CONTROL = /\p{Cc}/u
const NONCHARACTER = /\p{Noncharacter_Code_Point}/u
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u

// Deeper than any resource; a body nested deeper is refused rather than walked (stack safety).
const MAX_DEPTH = 32

export function checkStrings(
  value: unknown,
  schema: JsonSchema | undefined,
  path: string,
  failures: FieldError[],
): unknown {
  return walk(value, schema && shapeOf(schema), { root: path, steps: [] }, failures, 0)
}

// The access path is kept as a stack of steps and written out only for a failure: building a path
// string for every property of every valid body was a measurable part of an upload.
interface PathStack {
  root: string
  steps: (string | number)[]
}

function render(path: PathStack, key?: string): string {
  let text = path.root
  for (const step of path.steps) text = typeof step === 'number' ? `${text}[${step}]` : childPath(text, step)
  return key === undefined ? text : childPath(text, key)
}

function walk(
  value: unknown,
  shape: Shape | undefined,
  path: PathStack,
  failures: FieldError[],
  depth: number,
): unknown {
  if (typeof value === 'string') return checkString(value, shape, path, failures)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      failures.push({
        accessPath: render(path),
        message: 'is outside the range of numbers this service can keep exactly',
      })
    }
    return value
  }
  if (value === null || typeof value !== 'object') return value
  if (value instanceof OutOfRangeNumber) {
    failures.push({
      accessPath: render(path),
      message: `${value.source} is outside the range of numbers this service can keep exactly`,
    })
    return value
  }
  if (depth > MAX_DEPTH) {
    failures.push({ accessPath: render(path), message: `is nested more than ${MAX_DEPTH} levels deep` })
    return value
  }
  if (Array.isArray(value)) {
    const items = shape?.items()
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      // null and booleans have nothing to check; the walk answers the value changed, or the same one.
      if (item === null || typeof item === 'boolean') continue
      path.steps.push(i)
      const checked = walk(item, items, path, failures, depth + 1)
      if (checked !== item) value[i] = checked
      path.steps.pop()
    }
    return value
  }
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const child = record[key]
    // null on an optional field is the field left out (spec: No_value "has the same outcome as null").
    if (child === null && shape?.optional.has(key)) {
      delete record[key]
      continue
    }
    // A name the schema declares is plain text already; any other name gets the string rules.
    let property = shape?.declared.get(key)
    if (property === undefined) {
      checkKey(key, path, failures)
      property = shape?.undeclared(key)
    }
    if (child === null || typeof child === 'boolean') continue
    path.steps.push(key)
    const checked = walk(child, property?.shape(), path, failures, depth + 1)
    if (checked !== child) record[key] = checked
    path.steps.pop()
  }
  return value
}

// What the walk needs of one schema node, worked out once per node (the same resource schemas serve
// every upload; a bulk upload walks them for every line, and looking each step up again was most of
// its cost): whether its strings are enum values or integers, its optional properties, and the shape
// of its items and of every property name it declares, each made when first needed. Only declared
// names are kept, so what a body sends cannot grow it.
interface Shape {
  isEnum: boolean
  isInteger: boolean
  optional: ReadonlySet<string>
  declared: ReadonlyMap<string, Property>
  items(): Shape | undefined
  /** A property name the schema does not declare: its additionalProperties schema, if an object. */
  undeclared(key: string): Property | undefined
}
interface Property {
  shape(): Shape | undefined
}

const shapes = new WeakMap<JsonSchema, Shape>()
function shapeOf(schema: JsonSchema): Shape {
  let shape = shapes.get(schema)
  if (!shape) {
    const declared = new Map<string, Property>()
    for (const name of declaredNames(schema, new Set())) {
      if (textProblem(name) === undefined && !name.startsWith(' ') && !name.endsWith(' '))
        declared.set(
          name,
          lazyShape(() => schemaFor(schema, (s) => propertyIn(s, name))),
        )
    }
    const items = lazyShape(() => schemaFor(schema, (s) => s.items))
    shape = {
      isEnum: isEnum(schema),
      isInteger: schema.type === 'integer',
      optional: optionalPropertiesOf(schema),
      declared,
      items: items.shape,
      undeclared: (key) => lazyShape(() => schemaFor(schema, (s) => propertyIn(s, key))),
    }
    shapes.set(schema, shape)
  }
  return shape
}

function lazyShape(resolve: () => JsonSchema | undefined): Property {
  let resolved: { shape: Shape | undefined } | undefined
  return {
    shape: () => {
      if (!resolved) {
        const schema = resolve()
        resolved = { shape: schema && shapeOf(schema) }
      }
      return resolved.shape
    },
  }
}

function propertyIn(schema: JsonSchema, key: string): JsonSchema | undefined {
  const declared = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined
  return declared ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined)
}

// Property names of a schema and of its allOf, anyOf and oneOf branches.
function declaredNames(schema: JsonSchema, names: Set<string>): Set<string> {
  for (const name of Object.keys(schema.properties ?? {})) names.add(name)
  for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    declaredNames(branch, names)
  return names
}

function checkString(value: string, shape: Shape | undefined, path: PathStack, failures: FieldError[]): string {
  if (shape?.isEnum) {
    const trimmed = value.replace(/^ +| +$/g, '')
    if (trimmed !== value && !FORBIDDEN_WHITESPACE.test(trimmed)) return trimmed
  }
  if (shape?.isInteger && !path.root.startsWith('$') && !/^[+-]?\d+$/.test(value)) {
    // Path and query text is converted to the schema's type; only plain digits count as an integer
    // (not 0x10, 1e1 or 1.0, which a converter would otherwise accept).
    failures.push({ accessPath: render(path), message: 'must be an integer' })
    return value
  }
  // Printable ASCII (nearly every value) needs only the surrounding-space test.
  const problem = NOT_PRINTABLE_ASCII.test(value) ? textProblem(value) : undefined
  if (problem) failures.push({ accessPath: render(path), message: `must not contain ${problem}` })
  else if (value.startsWith(' ') || value.endsWith(' ')) {
    failures.push({ accessPath: render(path), message: 'must not have leading or trailing spaces' })
  }
  return value
}

function checkKey(key: string, path: PathStack, failures: FieldError[]): void {
  const problem = textProblem(key)
  if (problem) failures.push({ accessPath: render(path, key), message: `property name must not contain ${problem}` })
  else if (key.startsWith(' ') || key.endsWith(' ')) {
    failures.push({ accessPath: render(path, key), message: 'property name must not have leading or trailing spaces' })
  }
}

/** What makes a text unacceptable anywhere in a request, or undefined when nothing does. */
export function textProblem(value: string): string | undefined {
  if (!NOT_PRINTABLE_ASCII.test(value)) return undefined
  // Whitespace first: tab and line feed are control characters too, but this message says more.
  if (FORBIDDEN_WHITESPACE.test(value)) return 'tabs, line breaks or non-ASCII whitespace'
  const at = (pattern: RegExp): string => {
    const index = value.search(pattern)
    const code = value.codePointAt(index) ?? 0
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')} at character ${index + 1}`
  }
  if (LONE_SURROGATE.test(value)) return `a lone UTF-16 surrogate (${at(LONE_SURROGATE)}); send well-formed Unicode`
  if (CONTROL.test(value)) return `control characters (${at(CONTROL)})`
  if (NONCHARACTER.test(value)) return `Unicode noncharacters (${at(NONCHARACTER)})`
  if (BIDI_CONTROL.test(value)) return `bidirectional embedding, override or isolate controls (${at(BIDI_CONTROL)})`
  return undefined
}

// The properties an object schema knows but does not require (none when it declares none). Worked
// out once per schema node, with the rest of its shape.
function optionalPropertiesOf(schema: JsonSchema): Set<string> {
  const properties = schemaFor(schema, (s) => (s.properties ? s : undefined))
  const required = (properties?.required as string[] | undefined) ?? []
  return new Set(Object.keys(properties?.properties ?? {}).filter((key) => !required.includes(key)))
}

function isEnum(schema: JsonSchema | undefined): boolean {
  if (!schema) return false
  if (Array.isArray(schema.enum) || typeof schema.const === 'string') return true
  const branches = schema.anyOf ?? schema.oneOf
  return Array.isArray(branches) && branches.length > 0 && branches.every(isEnum)
}

// Follows a step (property, items) through allOf/anyOf/oneOf; the first branch that knows it wins.
function schemaFor(
  schema: JsonSchema | undefined,
  step: (s: JsonSchema) => JsonSchema | undefined,
): JsonSchema | undefined {
  if (!schema) return undefined
  const direct = step(schema)
  if (direct) return direct
  for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const found = schemaFor(branch, step)
    if (found) return found
  }
  return undefined
}

/** JSONPath-style child path: $.name for plain names, $['odd name'] otherwise. */
export function childPath(parent: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${JSON.stringify(key).replace(/^"|"$/g, "'")}]`
}
