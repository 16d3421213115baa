// A seeded pseudo-random stream, so that a generated file set is the same for the same seed on every
// machine and every Node.js version (Math.random cannot be seeded). sfc32, whose 128-bit state is the
// first 16 bytes of the SHA-256 of the seed and a purpose ('data', 'faults'): streams of different
// purposes are independent, so asking for faults does not change the data they are planted in.
import { createHash } from 'node:crypto'

export class Random {
  #a: number
  #b: number
  #c: number
  #d: number

  constructor(seed: string | number, purpose: string) {
    const digest = createHash('sha256')
      .update(JSON.stringify(['vetrs:avetmiss:generate:v1', String(seed), purpose]))
      .digest()
    this.#a = digest.readUInt32LE(0)
    this.#b = digest.readUInt32LE(4)
    this.#c = digest.readUInt32LE(8)
    this.#d = digest.readUInt32LE(12)
    for (let i = 0; i < 12; i++) this.next()
  }

  /** A number in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0
    this.#d = (this.#d + 1) | 0
    this.#a = this.#b ^ (this.#b >>> 9)
    this.#b = (this.#c + (this.#c << 3)) | 0
    this.#c = (this.#c << 21) | (this.#c >>> 11)
    this.#c = (this.#c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('nothing to pick from')
    return items[Math.floor(this.next() * items.length)]!
  }

  /** An item chosen with the weights given (same order); weights need not sum to 1. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0
    for (const weight of weights) total += weight
    let point = this.next() * total
    for (const [index, weight] of weights.entries()) {
      point -= weight
      if (point < 0) return items[index]!
    }
    return items[items.length - 1]!
  }

  /** `count` different items, in a random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items]
    const n = Math.min(count, copy.length)
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i))
      ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
    }
    return copy.slice(0, n)
  }
}

/**
 * Draws for many times the same weights: the running totals are kept, and each draw is a binary
 * search (a country among three hundred).
 */
export function weightedChooser<T>(items: readonly T[], weights: readonly number[]): (random: Random) => T {
  const totals: number[] = []
  let total = 0
  for (const weight of weights) {
    total += weight
    totals.push(total)
  }
  return (random) => {
    const point = random.next() * total
    let low = 0
    let high = totals.length - 1
    while (low < high) {
      const middle = (low + high) >>> 1
      if (totals[middle]! > point) high = middle
      else low = middle + 1
    }
    return items[low]!
  }
}
