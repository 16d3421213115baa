// Launcher for the TypeScript entry points: `node src/start.mjs src/main.ts [arguments]`.
// Plain JavaScript on purpose: a Node.js too old to run TypeScript (Node 20 stops at
// ERR_UNKNOWN_FILE_EXTENSION ".ts" before a line of ours runs) still runs this file, so it can say
// which version is needed and how to get it. The minimum is read from package.json's engines.
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const [needMajor, needMinor] = /(\d+)\.(\d+)/.exec(packageJson.engines.node).slice(1).map(Number)
const [major, minor] = process.versions.node.split('.').map(Number)

if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    [
      `The VET Reporting Service needs Node.js ${needMajor}.${needMinor} or later (24 LTS recommended); this is Node.js ${process.versions.node} (${process.execPath}).`,
      'Get Node.js 24 with: npm i -g --prefix ~/.node24 node@24 && export PATH=~/.node24/bin:$PATH   (or: nvm install 24 && nvm use 24)',
      '',
    ].join('\n'),
  )
  process.exit(1)
}

const entry = process.argv[2]
if (!entry) {
  process.stderr.write('usage: node src/start.mjs <entry.ts> [arguments]\n')
  process.exit(2)
}
const entryPath = resolve(entry)

// The service's own processes run with the image's memory settings (service-memory.mjs): what this
// process lacks of them, it is started again with (execve replaces it: the same process id, so a
// process manager, a signal and the data directory's lock see one process). Not on Windows, which has
// no execve (nor glibc), nor in a process with an IPC channel to its parent (`node --watch`, which learns
// the files to watch through it, or a fork), which the program started again would lose; the tests,
// tools and the CLI keep Node.js's defaults.
const SERVICE_ENTRIES = new Set(['src/main.ts', 'src/worker.ts'])
const projectRoot = fileURLToPath(new URL('..', import.meta.url))
if (
  SERVICE_ENTRIES.has(relative(projectRoot, entryPath).split('\\').join('/')) &&
  typeof process.execve === 'function' &&
  !process.channel
) {
  const { missingMemorySettings, STARTED_WITH_MEMORY_SETTINGS } = await import('./service-memory.mjs')
  const missing = missingMemorySettings(process.env, process.execArgv)
  if (missing) {
    process.execve(
      process.execPath,
      [process.execPath, ...missing.flags, ...process.execArgv, ...process.argv.slice(1)],
      {
        ...process.env,
        ...missing.env,
        [STARTED_WITH_MEMORY_SETTINGS]: '1',
      },
    )
  }
}

// npm runs a script through a shell (`sh -c`), and passes a SIGTERM it is sent to that shell, which
// dies of it without passing it on: a supervisor or a script that stopped `npm start` by npm's process
// id left the service running, orphaned, still on its port and holding the embedded database's lock
// (seen on Debian's dash). So a process npm started stops, as on SIGTERM, once the process that
// started it is gone. Not with an IPC channel (its parent, `node --watch` or a fork, manages it), nor
// on Windows, where npm's shell is cmd.exe and a process's parent is not followed so.
if (process.env.npm_lifecycle_event !== undefined && process.platform !== 'win32' && !process.channel) {
  const startedBy = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === startedBy) return
    clearInterval(watch)
    process.kill(process.pid, 'SIGTERM')
  }, 1000)
  watch.unref()
}

// The entry sees the command line it would see if started directly: [node, entry, ...arguments].
process.argv.splice(1, 2, entryPath)
await import(pathToFileURL(entryPath).href)
