// Peak resident set size of a process, as Linux keeps it: VmHWM in /proc/<pid>/status, reset by
// writing 5 to /proc/<pid>/clear_refs (a process may reset its own and its children's). So a bench
// measures the peak of one run, not of the process's life. Elsewhere (no /proc): undefined.
import { readFileSync, writeFileSync } from 'node:fs'

/** The peak RSS since the last reset, MB (2^20 bytes); undefined where /proc is not. */
export function peakRssMb(pid: number | 'self' = 'self'): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/** Starts the peak again from the RSS now; false where it cannot be reset. */
export function resetPeakRss(pid: number | 'self' = 'self'): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}
