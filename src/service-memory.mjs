// The memory settings the service's processes run with wherever they are started (issue 30, "Memory";
// docs/decisions.md, "npm start with the image's memory settings"): the container image's, so that
// `npm start` on a laptop holds what the image holds. Measured on the embedded database (100,000
// records validated, submitted and assessed; bench/results.md, ninth session): the service's peak
// 574 to 599 MB with them against 827 to 834 MB without, the jobs' seconds and p99 the same.
//  - --max-semi-space-size=16: V8's young generation at most 2 x 16 MB (Node.js sizes it from the
//    machine's memory: 2 x 64 MB on 24 GB, committed and kept);
//  - --heap-growing-percent=50: the old generation grown by at most half its live size after a full
//    collection (no limit on it: a larger job is never cut short);
//  - --experimental-wasm-compilation-hints --no-wasm-dynamic-tiering: the embedded database's largest
//    functions, PostgreSQL's parser among them, stay at V8's baseline compiler, as the hint in its
//    module asks (src/platform/db/pglite-module.ts): optimising the parser alone took 604 MB at every
//    start. Without dynamic tiering each function is optimised after its first baseline compilation
//    rather than once hot. Only WebAssembly is concerned (PGlite; Node.js's type stripping).
//  - MALLOC_MMAP_THRESHOLD_=131072: glibc gives every block of 128 KiB or more a mapping of its own,
//    returned when freed; its default raises that threshold to the size of the largest block freed,
//    after which query results and bodies come from the arena, which keeps what they leave (about
//    190 MB of the difference above).
// All three are read when a process starts, and Node.js refuses the second in NODE_OPTIONS, so the
// launcher (start.mjs) starts the process again with what is missing (execve: the same process id).
// A setting given by the operator (on node's command line, in NODE_OPTIONS or in the environment) is
// kept as given. Plain JavaScript, like the launcher.

/** V8 flags of the service's processes. */
export const SERVICE_NODE_FLAGS = [
  '--max-semi-space-size=16',
  '--heap-growing-percent=50',
  '--experimental-wasm-compilation-hints',
  '--no-wasm-dynamic-tiering',
]
/** Environment of the service's processes (glibc reads it at start). */
export const SERVICE_MEMORY_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' }
/** Set in the process started again, so that it never starts itself a third time. */
export const STARTED_WITH_MEMORY_SETTINGS = 'VETRS_MEMORY_SETTINGS'

const nameOf = (flag) => flag.split('=')[0].replace(/_/g, '-')

/**
 * What a process started with `execArgv` and `env` lacks of the settings above: undefined when
 * nothing (or when it is the process started again already).
 * @param {Record<string, string | undefined>} env
 * @param {string[]} execArgv
 * @returns {{ flags: string[], env: Record<string, string> } | undefined}
 */
export function missingMemorySettings(env, execArgv) {
  if (env[STARTED_WITH_MEMORY_SETTINGS] === '1') return undefined
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf)
  const flags = SERVICE_NODE_FLAGS.filter((flag) => !given.includes(nameOf(flag)))
  const missingEnv = Object.fromEntries(Object.entries(SERVICE_MEMORY_ENV).filter(([name]) => env[name] === undefined))
  if (flags.length === 0 && Object.keys(missingEnv).length === 0) return undefined
  return { flags, env: missingEnv }
}
