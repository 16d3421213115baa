// The embedded database belongs to one process: PGlite does not stop a second process from opening
// the same directory, and two writers corrupt it. The first process takes a lock file in the data
// directory (created whole and exclusively, holding its pid); a second is refused, naming the first.
// A lock whose process is gone (a crash, SIGKILL) is stale and taken over.
import { hostname } from 'node:os'
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { StartupError } from '../startup.ts'

export const LOCK_FILE = 'vetrs.lock'

interface Holder {
  pid: number
  hostname: string
  startedAt: string
}

export interface DataDirectoryLock {
  readonly path: string
  /** Removes the lock file if it is still this process's; safe to call twice. */
  release(): void
}

// Directories locked by this process: a second open from the same process is refused too.
const heldHere = new Set<string>()

/** Takes the lock on an existing data directory, or throws a StartupError naming the process holding it. */
export function lockDataDirectory(dataDir: string): DataDirectoryLock {
  const directory = resolve(dataDir)
  const path = join(directory, LOCK_FILE)
  if (heldHere.has(path)) throw lockedError(dataDir, path, { pid: process.pid, hostname: hostname(), startedAt: '' })
  const me: Holder = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() }
  // Written aside, then linked into place: link fails if the lock exists, and never exposes a
  // half-written file, so a reader always sees a whole holder.
  const candidate = `${path}.${process.pid}.new`
  writeFileSync(candidate, `${JSON.stringify(me)}\n`)
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(candidate, path)
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error
      }
      const holder = readHolder(path)
      if (holder === undefined) continue // removed meanwhile: try again
      if (isAlive(holder)) throw lockedError(dataDir, path, holder)
      removeStaleLock(path, holder)
    }
  } finally {
    unlinkSync(candidate)
  }
  heldHere.add(path)
  const release = () => {
    if (!heldHere.delete(path)) return
    if (readHolder(path)?.pid === me.pid) unlinkSync(path)
  }
  // A process that exits without closing (a shutdown timeout, process.exit) still releases it.
  process.once('exit', release)
  return {
    path,
    release: () => {
      process.off('exit', release)
      release()
    },
  }
}

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    // Unreadable or not ours: treated as a lock of unknown holder that must be removed by hand.
    return { pid: Number.NaN, hostname: 'unknown', startedAt: '' }
  }
}

function isAlive(holder: Holder): boolean {
  // A lock written on another machine (a shared volume) cannot be checked from here: respected.
  if (holder.hostname !== hostname() || !Number.isInteger(holder.pid)) return true
  // Not held by this process (checked above): a container restarted with the same pid left it.
  if (holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' // exists, another user's
  }
}

// Moved aside before it is deleted: if two processes find the same stale lock, only one move
// succeeds, and a process that moved a live lock (taken between its read and its move) puts it back.
function removeStaleLock(path: string, stale: Holder): void {
  const aside = `${path}.${process.pid}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const moved = readHolder(aside)
  if (moved && moved.pid !== stale.pid) {
    try {
      linkSync(aside, path)
    } catch {
      /* another process holds it now; ours is refused on the next attempt */
    }
  }
  unlinkSync(aside)
}

function lockedError(dataDir: string, path: string, holder: Holder): StartupError {
  const who = Number.isInteger(holder.pid)
    ? `process ${holder.pid}${holder.hostname === hostname() ? '' : ` on ${holder.hostname}`}${holder.startedAt ? ` (started ${holder.startedAt})` : ''}`
    : 'another process'
  return new StartupError(
    'data-directory-locked',
    `the embedded database in ${dataDir} is in use by ${who}: it belongs to one process. Stop that process first, ` +
      `or use PostgreSQL (DATABASE_URL) to run several. If no such process runs, remove ${path}.`,
    {
      dataDir,
      lockFile: path,
      holderPid: Number.isInteger(holder.pid) ? holder.pid : undefined,
      holderHostname: holder.hostname,
    },
  )
}
