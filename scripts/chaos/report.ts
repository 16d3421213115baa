// Latency per endpoint during faults and outside them, and the printed summary of a chaos run.
import type { Fault } from './faults.ts'
import type { Observation } from './ledger.ts'

export interface Percentiles {
  n: number
  p50: number | null
  p99: number | null
}

export type Latency = Record<string, { duringFaults: Percentiles; outsideFaults: Percentiles }>

/** Per endpoint, the time to the answer's headers of every attempt that got an answer, split by whether it overlapped a fault. */
export function latencyByEndpoint(observations: Observation[], faults: Fault[]): Latency {
  const groups = new Map<string, { during: number[]; outside: number[] }>()
  for (const o of observations) {
    if (typeof o.status !== 'number') continue
    const group = groups.get(o.endpoint) ?? { during: [], outside: [] }
    groups.set(o.endpoint, group)
    const inFault = faults.some((f) => o.end >= f.start && o.start <= f.recovered)
    ;(inFault ? group.during : group.outside).push(o.end - o.start)
  }
  const out: Latency = {}
  for (const [endpoint, { during, outside }] of [...groups].sort(
    (a, b) => b[1].during.length + b[1].outside.length - (a[1].during.length + a[1].outside.length),
  ))
    out[endpoint] = { duringFaults: percentiles(during), outsideFaults: percentiles(outside) }
  return out
}

function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { n: 0, p50: null, p99: null }
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)
  return { n: values.length, p50: at(0.5), p99: at(0.99) }
}

export function latencyTable(latency: Latency): string {
  const ms = (v: number | null) => (v === null ? '-' : String(v))
  const rows = Object.entries(latency).map(([endpoint, { duringFaults: d, outsideFaults: o }]) => [
    endpoint,
    String(o.n),
    ms(o.p50),
    ms(o.p99),
    String(d.n),
    ms(d.p50),
    ms(d.p99),
  ])
  const header = ['endpoint', 'n', 'p50', 'p99', 'n', 'p50', 'p99']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`
  const groupWidth = widths.slice(1, 4).reduce((a, b) => a + b + 2, -2)
  return [
    `  ${''.padEnd(widths[0]!)}  ${'outside faults (ms)'.padEnd(groupWidth)}  during faults (ms)`,
    line(header),
    ...rows.map(line),
  ].join('\n')
}
