// What the reader and the writer report about a NAT file, and how many they keep.

/**
 * One problem in a NAT file: where it is, and what was found.
 * - `file`: the file's name as found in the folder or zip (or the file identifier when it is missing);
 * - `line`: 1-based line of the file, or 0 for the file as a whole (missing, duplicated);
 * - `field`: the layout's field name (`activityStartDate`), absent when the whole line is at fault;
 * - `value`: the offending text as it stood in the file, absent when there is none;
 * - `record`: the line's record in the file's own identifiers (`client C000077777, subject BSBWHS411,
 *   program BSB40120, location CBD01, starting 02/02/2026`), absent when the line gave none;
 * - `correctiveAction`: what to change in the student management system (SMS) that wrote the file.
 */
export interface NatProblem {
  file: string
  line: number
  field?: string
  value?: string
  message: string
  record?: string
  correctiveAction?: string
}

export const DEFAULT_MAX_PROBLEMS = 1000

/**
 * Keeps the first `max` problems and counts the rest, so that a badly broken file (every line of a
 * 200 000-line NAT00120) still reads in bounded memory and the caller learns how much more is wrong.
 */
export class ProblemCollector {
  readonly problems: NatProblem[] = []
  readonly max: number
  #count = 0

  constructor(max: number = DEFAULT_MAX_PROBLEMS) {
    this.max = max
    if (!Number.isInteger(max) || max < 0) throw new RangeError(`maxProblems must be a whole number ≥ 0, not ${max}`)
  }

  /** Counts the problem, and keeps it while fewer than `max` are kept, or always when `keep` says so. */
  add(problem: NatProblem, { keep = false }: { keep?: boolean } = {}): void {
    this.#count += 1
    if (keep || this.problems.length < this.max) this.problems.push(problem)
  }

  /** Counts `count` more problems, none of them kept (the lines of a file not read on). */
  countMore(count: number): void {
    this.#count += count
  }

  /** Every problem found, the ones not kept included. */
  get count(): number {
    return this.#count
  }

  get truncated(): boolean {
    return this.#count > this.problems.length
  }
}
