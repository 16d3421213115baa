// NAT records by their keys: one record per key where a key must be unique in the set (a client, a
// location, a program), and every record of a key where several belong together (a client's
// disabilities).
import type { NatRecord } from '../../records.ts'
import { type ImportContext, report } from './context.ts'

/**
 * The first record of each key, in file order. A later record with the same key is a duplicate: it is
 * reported at its line, as `what` of the first one's line, and not carried.
 */
export function firstByKey<R extends NatRecord>(
  context: ImportContext,
  records: readonly R[],
  keyOf: (record: R) => string,
  what: (key: string) => string,
): Map<string, R> {
  const byKey = new Map<string, R>()
  for (const record of records) {
    const key = keyOf(record)
    const first = byKey.get(key)
    if (first) {
      report(context, record, undefined, `${what(key)} is already on line ${first.line}; this line is not carried`)
      continue
    }
    byKey.set(key, record)
  }
  return byKey
}

/** Every item of each key, in the order given. */
export function allByKey<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const byKey = new Map<string, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const list = byKey.get(key)
    if (list) list.push(item)
    else byKey.set(key, [item])
  }
  return byKey
}
