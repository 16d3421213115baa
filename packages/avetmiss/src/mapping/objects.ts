// Records are built field by field, many of them optional; a field with nothing to carry is left out
// of the body altogether, as the API expects, rather than sent as a key with no value.

/** A copy of `value` without its properties that are undefined. */
export function defined<T extends object>(value: T): T {
  const copy: Record<string, unknown> = {}
  // for...in over a literal's own keys: no array of entries per record (a set maps to 100 000s).
  for (const key in value) {
    const field = value[key]
    if (field !== undefined) copy[key] = field
  }
  return copy as T
}
