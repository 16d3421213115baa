// CPU a process has used, as Linux counts it in /proc/<pid>/stat: what a bench reads of the processes
// it does not run in (the load generator, the database's backends).
import { readdirSync, readFileSync } from 'node:fs'

/**
 * CPU milliseconds (user + system) of these processes so far. A process that cannot be read (gone, or
 * no /proc) makes the answer undefined, or with `gone: 'skip'` is left out (processes found by name
 * come and go: a database's background workers).
 */
export function cpuMsOf(pids: readonly number[], gone: 'undefined' | 'skip' = 'undefined'): number | undefined {
  let total = 0
  for (const pid of pids) {
    try {
      // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per s).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      total += (Number(fields[11]) + Number(fields[12])) * 10
    } catch {
      if (gone === 'undefined') return undefined
    }
  }
  return total
}

/** The processes whose command name is `name` (e.g. every `postgres` process of the machine). */
export function processesNamed(name: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry))
    } catch {
      // a process that ended meanwhile
    }
  }
  return pids
}
