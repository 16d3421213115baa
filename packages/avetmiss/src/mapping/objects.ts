// Records are built field by field, many of them optional; a field with nothing to carry is left out
// of the body altogether, as the API expects, rather than sent as a key with no value.

/** A copy of `value` without its properties that are undefined. */
export function defined<T extends object>(value: T): T {
  const copy: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) if (field !== undefined) copy[key] = field
  return copy as T
}
