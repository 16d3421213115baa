// A held record as people recognise it: a label from its content (a student's name, client identifier
// and USI; a unit's or program's code and title; a location's name), its fields in full as "where:
// value" lines, and what changed between two versions.

/** The words a person knows a record by, and the identifiers beside them; undefined when its content names none. */
export function recordLabel(
  type: string,
  body: Record<string, unknown>,
): { title: string; details: string[] } | undefined {
  const text = (name: string) =>
    typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined
  const joined = (...parts: (string | undefined)[]) => parts.filter((part) => part !== undefined).join(' ')
  switch (type) {
    case 'Student': {
      const name = joined(text('firstGivenName'), text('familyName'))
      const details = [
        ...(text('clientIdentifier') ? [`client identifier ${text('clientIdentifier')}`] : []),
        ...(text('uniqueStudentIdentifier') ? [`USI ${text('uniqueStudentIdentifier')}`] : []),
      ]
      return name || details.length > 0 ? { title: name || 'A student', details } : undefined
    }
    case 'Subject':
      return text('subjectIdentifier')
        ? { title: joined(text('subjectIdentifier'), text('subjectName')), details: [] }
        : undefined
    case 'Program':
      return text('programIdentifier')
        ? { title: joined(text('programIdentifier'), text('programName')), details: [] }
        : undefined
    case 'DeliveryLocation':
      return text('deliveryLocationName') || text('deliveryLocationIdentifier')
        ? {
            title: text('deliveryLocationName') ?? text('deliveryLocationIdentifier')!,
            details: text('deliveryLocationIdentifier') ? [`identifier ${text('deliveryLocationIdentifier')}`] : [],
          }
        : undefined
    default:
      return undefined
  }
}

export interface FieldLine {
  /** Where in the record: `familyName`, `permanentAddress.postcode`, `lifecycle[0].studentActivityDate`. */
  path: string
  value: string
}

/** Every field of the record with a value, in the record's own order. */
export function fieldsOf(body: unknown, path = ''): FieldLine[] {
  if (Array.isArray(body)) return body.flatMap((item, index) => fieldsOf(item, `${path}[${index}]`))
  if (body !== null && typeof body === 'object')
    return Object.entries(body).flatMap(([name, value]) => fieldsOf(value, path ? `${path}.${name}` : name))
  if (body === undefined) return []
  return [{ path, value: typeof body === 'string' ? body : JSON.stringify(body) }]
}

export interface FieldChange {
  path: string
  /** The value before; undefined when the field was added. */
  before: string | undefined
  /** The value after; undefined when the field was left out. */
  after: string | undefined
}

/** What changed from one version to the next: fields changed, added or left out. */
export function changesBetween(before: unknown, after: unknown): FieldChange[] {
  const old = new Map(fieldsOf(before).map((line) => [line.path, line.value]))
  const changes: FieldChange[] = []
  for (const line of fieldsOf(after)) {
    const was = old.get(line.path)
    if (was !== line.value) changes.push({ path: line.path, before: was, after: line.value })
    old.delete(line.path)
  }
  for (const [path, was] of old) changes.push({ path, before: was, after: undefined })
  return changes
}

/**
 * The value at a failed result's access path (`$.dateOfBirth`, `$.locations[0].deliveryLocationUID`)
 * as text; undefined when the record gives none there.
 */
export function valueAt(body: unknown, accessPath: string): string | undefined {
  const steps = accessPath.replace(/^\$/, '').match(/\.[^.[\]]+|\[\d+\]/g) ?? []
  let value: unknown = body
  for (const step of steps) {
    if (value === null || typeof value !== 'object') return undefined
    value = step.startsWith('[')
      ? (value as unknown[])[Number(step.slice(1, -1))]
      : (value as Record<string, unknown>)[step.slice(1)]
  }
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Where a field sits: its path without the last step (`lifecycle[0].date` → `lifecycle[0]`; `familyName` → ``). */
const parentOf = (path: string) => path.replace(/(\.[^.[\]]+|\[\d+\]|^[^.[\]]+)$/, '')

/**
 * The fields beside a failed result's field, so a person sees it in its place: the fields of the same
 * part of the record (2 before and 2 after it, in the record's order; the first few of that part when
 * the field is not given; the fields inside it when it names a part). The failing fields themselves
 * are left out: they are shown with their own values.
 */
export function neighboursOf(body: unknown, accessPaths: string[], limit = 4): FieldLine[] {
  const lines = fieldsOf(body)
  const failing = new Set(accessPaths.map((path) => path.replace(/^\$\.?/, '')))
  const shown = new Map<string, FieldLine>()
  for (const path of failing) {
    const inside = lines.filter((line) => line.path.startsWith(`${path}.`) || line.path.startsWith(`${path}[`))
    const parent = parentOf(path)
    const siblings = lines.filter((line) => parentOf(line.path) === parent && !failing.has(line.path))
    const at = lines.findIndex((line) => line.path === path)
    let near: FieldLine[]
    if (inside.length > 0) near = inside.slice(0, limit)
    else if (at < 0) near = siblings.slice(0, limit)
    else {
      const before = siblings.filter((line) => lines.indexOf(line) < at).slice(-limit / 2)
      const after = siblings.filter((line) => lines.indexOf(line) > at)
      near = [...before, ...after.slice(0, limit - before.length)]
    }
    for (const line of near) if (!failing.has(line.path)) shown.set(line.path, line)
  }
  return [...shown.values()].slice(0, limit * 2)
}
