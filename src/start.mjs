// Launcher for the TypeScript entry points: `node src/start.mjs src/main.ts [arguments]`.
// Plain JavaScript on purpose: a Node.js too old to run TypeScript (Node 20 stops at
// ERR_UNKNOWN_FILE_EXTENSION ".ts" before a line of ours runs) still runs this file, so it can say
// which version is needed and how to get it. The minimum is read from package.json's engines.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

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
// The entry sees the command line it would see if started directly: [node, entry, ...arguments].
const entryPath = resolve(entry)
process.argv.splice(1, 2, entryPath)
await import(pathToFileURL(entryPath).href)
