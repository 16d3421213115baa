// A bound on the garbage the NAT set worker carries. Reading and mapping a set makes garbage in
// bursts (each file's inflated bytes, each chunk's lines, records, JSON and gzip input), and V8
// collects an isolate's old generation only once it has grown by a share of what was live after the
// last collection, keeping the pages it frees for reuse: at 100,000 activities the worker's garbage
// and its free pages were about 100 MB of the service's peak (bench/results.md, fourteenth and
// eighteenth sessions). The worker runs nothing a pause holds up (the service's requests run on its
// own thread), so it collects, and gives the freed pages back, whenever its heap and external memory
// have grown by the budget since its last collection.
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const MiB = 1024 * 1024

/** V8's `gc` extension: the options its function takes. */
type Collect = (options?: { type: 'major'; execution: 'sync'; flavor: 'regular' | 'last-resort' }) => void

/**
 * A full collection that returns the pages it frees (V8's "last resort" collection, which a heap at
 * its limit runs: the young generation shrunk and the free pages released at once, not some seconds
 * later). A process started with --expose-gc has the function; otherwise the flag is set and a new
 * context, which V8 gives the function, hands it over (the flag adds `gc` only to contexts made after
 * it, and nothing of the service's looks for one). Undefined where V8 refuses both: nothing is collected
 * early then, as before.
 */
export function collectAndRelease(): (() => void) | undefined {
  let gc = (globalThis as { gc?: Collect }).gc
  try {
    if (typeof gc !== 'function') {
      setFlagsFromString('--expose-gc')
      gc = runInNewContext('gc') as Collect
    }
  } catch {
    return undefined
  }
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

/** What this thread's isolate holds: its heap's objects, live and garbage, and their external memory. */
function heldBytes(): number {
  const { used_heap_size, external_memory } = getHeapStatistics()
  return used_heap_size + external_memory
}

export class GarbageBudget {
  readonly #collect: (() => void) | undefined
  readonly #budgetBytes: number
  #afterLast: number

  constructor(budgetMb: number, collect: (() => void) | undefined = collectAndRelease()) {
    this.#collect = collect
    this.#budgetBytes = budgetMb * MiB
    this.#afterLast = heldBytes()
  }

  /** Between two pieces of work: collects if more than the budget was allocated since the last collection. */
  spend(): void {
    if (heldBytes() - this.#afterLast > this.#budgetBytes) this.collect()
  }

  /** Collects now: at the end of a stage whose data is all garbage at once. */
  collect(): void {
    if (!this.#collect) return
    this.#collect()
    this.#afterLast = heldBytes()
  }
}
