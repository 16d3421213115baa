// The child process of initialise-data-directory.ts: creates the embedded database in the directory
// given as its argument (PGlite runs initdb when the directory holds none) and closes it cleanly, so
// the service opens a directory that needs no recovery. A failure is one line on stderr, which the
// service puts in its own start-up error, and exit code 1.
import { PGlite } from '@electric-sql/pglite'
import { hintedPgliteModule } from './pglite-module.ts'

/**
 * The file-system errors a data directory meets, by Emscripten's numbers (its ERRNO_CODES, as bundled
 * in @electric-sql/pglite's dist; they are not Linux's): PGlite's file-system errors carry only these.
 */
const FILE_SYSTEM_ERRORS: Record<number, string> = {
  2: 'EACCES: permission denied',
  20: 'EEXIST: a file is already there',
  29: 'EIO: input/output error',
  31: 'EISDIR: a directory where a file was expected',
  44: 'ENOENT: no such file or directory',
  48: 'ENOMEM: out of memory',
  51: 'ENOSPC: no space left on the device',
  54: 'ENOTDIR: a file where a directory was expected',
  63: 'EPERM: operation not permitted',
  69: 'EROFS: read-only file system',
}

/** PGlite's file-system errors carry an errno and no message. */
function describe(error: unknown): string {
  if (error instanceof Error && error.message) return error.message
  const errno = (error as { errno?: unknown } | null)?.errno
  if (typeof errno !== 'number') return String(error)
  return FILE_SYSTEM_ERRORS[errno] ?? `file system error ${errno} (Emscripten's numbering)`
}

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
