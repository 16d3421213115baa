// What every benchmark reads the same way: its settings from the environment, and medians of its runs.

/** An environment setting that must be a whole number from 1 to `maximum`; `fallback` when unset. */
export function positiveInteger(name: string, fallback: number, maximum: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > maximum)
    throw new Error(`${name} must be an integer from 1 to ${maximum} (got ${JSON.stringify(raw)})`)
  return value
}

/** The median: the middle value, or the mean of the two middle values of an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
