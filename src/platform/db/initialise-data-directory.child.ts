// The child process of initialise-data-directory.ts: creates the embedded database in the directory
// given as its argument (PGlite runs initdb when the directory holds none) and closes it cleanly, so
// the service opens a directory that needs no recovery. A failure is one line on stderr, which the
// service puts in its own start-up error, and exit code 1.
import { PGlite } from '@electric-sql/pglite'
import { hintedPgliteModule } from './pglite-module.ts'

const dataDir = process.argv[2]
try {
  if (!dataDir) throw new Error('no data directory given')
  const pgliteWasmModule = await hintedPgliteModule()
  const pglite = await PGlite.create(dataDir, pgliteWasmModule ? { pgliteWasmModule } : {})
  await pglite.close()
} catch (error) {
  process.stderr.write(`${describe(error)}\n`)
  process.exitCode = 1
}

/** PGlite's file-system errors carry an errno and no message. */
function describe(error: unknown): string {
  if (error instanceof Error && error.message) return error.message
  const errno = (error as { errno?: unknown } | null)?.errno
  return errno === undefined ? String(error) : `file system error ${String(errno)} (Emscripten errno)`
}
