// The specification's string rules, applied to every string (and property name) in a body, path or
// query before schema validation: leading or trailing spaces are rejected; tabs, line breaks and
// non-ASCII whitespace are rejected anywhere; spaces inside are accepted. Enum values are the
// exception: surrounding spaces are trimmed and the value accepted (the spec allows it; clients should
// not rely on it).
// Text that is not plain Unicode text is refused too (docs/decisions.md, "Characters refused in
// text"): control characters (NUL cannot even be stored), lone UTF-16 surrogates (not Unicode at all),
// noncharacters, and the bidirectional embedding, override and isolate controls, which reorder how a
// name or identifier is displayed without changing what it says.
import type { FieldError } from './problem.ts'
import { OutOfRangeNumber } from './body-parsers.ts'

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
  return walk(value, schema, { root: path, steps: [] }, failures, 0)
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
  schema: JsonSchema | undefined,
  path: PathStack,
  failures: FieldError[],
  depth: number,
): unknown {
  if (typeof value === 'string') return checkString(value, schema, path, failures)
  if (value instanceof OutOfRangeNumber) {
    failures.push({
      accessPath: render(path),
      message: `${value.source} is outside the range of numbers this service can keep exactly`,
    })
    return value
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    failures.push({
      accessPath: render(path),
      message: 'is outside the range of numbers this service can keep exactly',
    })
    return value
  }
  if (depth > MAX_DEPTH && value !== null && typeof value === 'object') {
    failures.push({ accessPath: render(path), message: `is nested more than ${MAX_DEPTH} levels deep` })
    return value
  }
  if (Array.isArray(value)) {
    const items = schemaFor(schema, (s) => s.items)
    for (let i = 0; i < value.length; i++) {
      path.steps.push(i)
      value[i] = walk(value[i], items, path, failures, depth + 1)
      path.steps.pop()
    }
    return value
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const optional = optionalPropertiesOf(schema)
    for (const key of Object.keys(record)) {
      // null on an optional field is the field left out (spec: No_value "has the same outcome as null").
      if (record[key] === null && optional?.has(key)) {
        delete record[key]
        continue
      }
      checkKey(key, path, failures)
      const property = schemaFor(
        schema,
        (s) => s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined),
      )
      path.steps.push(key)
      record[key] = walk(record[key], property, path, failures, depth + 1)
      path.steps.pop()
    }
  }
  return value
}

function checkString(value: string, schema: JsonSchema | undefined, path: PathStack, failures: FieldError[]): string {
  if (isEnum(schema)) {
    const trimmed = value.replace(/^ +| +$/g, '')
    if (trimmed !== value && !FORBIDDEN_WHITESPACE.test(trimmed)) return trimmed
  }
  if (schema?.type === 'integer' && !path.root.startsWith('$') && !/^[+-]?\d+$/.test(value)) {
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

// The properties an object schema knows but does not require; undefined when the schema says nothing.
// Cached per schema object: the same resource schema serves every upload.
const optionalCache = new WeakMap<JsonSchema, Set<string> | undefined>()
function optionalPropertiesOf(schema: JsonSchema | undefined): Set<string> | undefined {
  if (!schema) return undefined
  if (optionalCache.has(schema)) return optionalCache.get(schema)
  const properties = schemaFor(schema, (s) => (s.properties ? s : undefined))
  const optional = properties?.properties
    ? new Set(
        Object.keys(properties.properties).filter(
          (key) => !((properties.required as string[] | undefined) ?? []).includes(key),
        ),
      )
    : undefined
  optionalCache.set(schema, optional)
  return optional
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
