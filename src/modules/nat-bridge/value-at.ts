// Reading a value back out of a record by the access path a finding names: the service (for a refused
// upload) and the NAT set worker (for a validation finding) both show the value a data officer must change.

/** The value at a JSON path of a record (`$.locations[0].deliveryLocationUID`), or undefined. */
export function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body
  for (const part of path
    .replace(/^\$\.?/, '')
    .split(/\.|\[(\d+)\]/)
    .filter((piece) => piece)) {
    if (at === null || typeof at !== 'object') return undefined
    at = (at as Record<string, unknown>)[part]
  }
  return at
}
