// The memory of `vetrs nat import` (issue 31 item 9; docs/decisions.md, "NAT import: what holds the
// memory"). Measured at 100,000 activities, the CLI's peak RSS was V8's young generation (semi-spaces
// that grow to 64 MB each when pointer compression is off, as in Node.js) and glibc's main arena
// (large buffers, once one is freed, come from the arena instead of their own mappings, and the arena
// keeps what they leave), not what the import keeps live. Both are set when a process starts, so the
// launcher starts the import in a Node.js of its own with them set:
//  - --max-semi-space-size=8: the young generation at most 2 x 8 MB (no bound on the old
//    generation, so a larger set is never cut short by a heap limit);
//  - MALLOC_MMAP_THRESHOLD_=131072: every block of 128 KiB or more in a mapping of its own, given
//    back to the system when freed (a fixed threshold also ends glibc's raising of it);
//  - --heap-growing-percent=25: after each full collection the old generation may grow by a quarter of what
//    is live, not by V8's default factor: what the import keeps live is bounded by a chunk (the client
//    files' lines are read again chunk by chunk), so garbage, not live data, was most of its heap
//    (100,000 activities: peak RSS 465 MB without it, 355 with it at half; bench/results.md, sixth
//    session). With chunks of 2,500 lines, a quarter and the young generation at 8 MB took the peak
//    from 283-299 MB to 252-263 for about 1 s more of 18 (eighth session, quiet).
//    Node.js refuses the flag in NODE_OPTIONS, not on its command line, where the launcher gives it.
// Plain JavaScript, like the launcher.

/** V8 flags of the process that runs a NAT import. */
export const NAT_IMPORT_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=25']
/** Environment of the process that runs a NAT import. */
export const NAT_IMPORT_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' }
/** Set in the started process, so that it runs the command itself. */
export const STARTED_FOR_MEMORY = 'VETRS_NAT_IMPORT_PROCESS'

/**
 * Whether these arguments are a NAT import to start in a process of its own: `nat import` among them,
 * not already in such a process, and no young generation size given by the user (NODE_OPTIONS or the
 * command line), which is then left as given.
 * @param {string[]} args the CLI's arguments
 * @param {Record<string, string | undefined>} env
 * @param {string[]} execArgv
 */
export function natImportNeedsOwnProcess(args, env = process.env, execArgv = process.execArgv) {
  const nat = args.indexOf('nat')
  if (nat < 0 || args[nat + 1] !== 'import') return false
  if (env[STARTED_FOR_MEMORY] === '1') return false
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
  return !given.some((flag) => /^--max[-_]semi[-_]space[-_]size/.test(flag))
}

/**
 * Runs the CLI again in a Node.js with the flags and environment above and ends as it ends (its exit
 * code, or its signal). Ctrl-C reaches both processes from the terminal, so this one waits for the
 * import to stop; SIGTERM and SIGHUP sent to this process are passed on.
 * @param {string} bin this launcher's path
 * @param {string[]} args
 */
export async function runNatImportInOwnProcess(bin, args) {
  const { spawn } = await import('node:child_process')
  const child = spawn(process.execPath, [...NAT_IMPORT_NODE_FLAGS, ...process.execArgv, bin, ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...NAT_IMPORT_ENV, [STARTED_FOR_MEMORY]: '1' },
  })
  const pass = (signal) => child.kill(signal)
  process.on('SIGINT', () => {})
  process.on('SIGTERM', pass)
  process.on('SIGHUP', pass)
  return await new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`vetrs: could not start the NAT import's process: ${error.message}\n`)
      resolve(1)
    })
    child.once('exit', (code, signal) => {
      if (signal) {
        process.removeAllListeners(signal)
        process.kill(process.pid, signal)
      }
      resolve(code ?? 1)
    })
  })
}
