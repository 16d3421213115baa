// A new data directory is initialised (PGlite's initdb) by a short-lived process of its own, not by
// the service's (issue 30, "Memory"). initdb is the embedded database's most expensive moment: a
// process that runs it peaks at 650 to 690 MB (PGlite's module compiled and the bootstrap run), and
// glibc keeps the fragments of what it allocated: the service that had run it held 43 to 48 MB of
// malloc's heap at rest against 17 to 22 MB for one that opened a directory initialised elsewhere, and
// its start peaked at 730 to 739 MB against 402 to 409 (bench/results.md, sixteenth session). The
// machine still sees initdb's peak once, in the child, which ends when the directory is ready.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SERVICE_MEMORY_ENV, SERVICE_NODE_FLAGS } from '../../service-memory.mjs'
import { StartupError } from '../startup.ts'

const CHILD = fileURLToPath(new URL('./initialise-data-directory.child.ts', import.meta.url))

/** What the child printed, at most this much of its end, for the error of an initialisation that failed. */
const OUTPUT_TAIL_CHARS = 2000

/** Flags of the service's process passed on: its memory settings and the WebAssembly compiler's. */
const PASSED_ON = [...SERVICE_NODE_FLAGS.map(nameOf), '--liftoff-only', '--max-old-space-size']

function nameOf(flag: string): string {
  return flag.split('=')[0]!
}

/**
 * The child's V8 flags: the service's own memory and compiler flags as its process has them (the
 * operator's kept, `start:small-memory`'s --liftoff-only too), and the image's settings it lacks
 * (src/service-memory.mjs): the compilation hint keeps PostgreSQL's parser from V8's optimising
 * compiler in initdb too.
 */
function childFlags(): string[] {
  const given = process.execArgv.filter((flag) => PASSED_ON.includes(nameOf(flag)))
  const named = [...given, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf)
  return [...given, ...SERVICE_NODE_FLAGS.filter((flag) => !named.includes(nameOf(flag)))]
}

/** The service's environment with glibc's settings it lacks; never a test runner's (the child is no test). */
function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...SERVICE_MEMORY_ENV, ...process.env }
  delete env.NODE_TEST_CONTEXT
  return env
}

/** Whether PostgreSQL's files are in the directory already (PG_VERSION is written by initdb). */
export function isInitialised(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'))
}

/**
 * Initialises the data directory in a child process when it holds no database yet; does nothing when
 * it does. The caller holds the directory's lock (the child takes none: it is the service's helper).
 */
export async function initialiseDataDirectory(dataDir: string): Promise<void> {
  if (isInitialised(dataDir)) return
  const child = spawn(process.execPath, [...childFlags(), CHILD, dataDir], {
    env: childEnvironment(),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let output = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS)
  })
  const ended = await new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }))
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
  if (ended.code === 0 && isInitialised(dataDir)) return
  const how = ended.error ? ended.error.message : ended.signal ? `ended by ${ended.signal}` : `exit code ${ended.code}`
  throw new StartupError(
    'data-directory-initialisation-failed',
    `the embedded database could not be created in ${dataDir} (${how}${output.trim() ? `: ${output.trim()}` : ''}): DATA_DIR must be a directory the service can write, new or holding a database, with room on its disk`,
    { dataDir },
  )
}
