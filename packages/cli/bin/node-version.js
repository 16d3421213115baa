// Which Node.js the CLI needs, checked before anything that an older Node.js cannot load (Node 20 has
// no module.registerHooks and cannot run TypeScript). Plain JavaScript on purpose, like the
// service's launcher (src/start.mjs), and with the same message: what is needed, what this is, and
// how to get Node.js 24. The minimum is read from this package's engines field.
import { readFileSync } from 'node:fs'

/** The lowest Node.js this package runs on, [major, minor], from package.json's engines (">=22.18"). */
export function minimumNode() {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const [major, minor] = /(\d+)\.(\d+)/.exec(packageJson.engines.node).slice(1).map(Number)
  return [major, minor]
}

/**
 * What to tell someone running `who` on a Node.js older than `needed`, or undefined when it is new enough.
 * @param {string} who what needs the version, e.g. "The VET Reporting Service" or "vetrs"
 * @param {[number, number]} needed the minimum, [major, minor]
 * @param {string} version the running Node.js's version, e.g. "20.11.1"
 * @param {string} execPath where the running Node.js is
 * @returns {string | undefined}
 */
export function nodeVersionProblem(who, needed, version = process.versions.node, execPath = process.execPath) {
  const [needMajor, needMinor] = needed
  const [major, minor] = version.split('.').map(Number)
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined
  return [
    `${who} needs Node.js ${needMajor}.${needMinor} or later (24 LTS recommended); this is Node.js ${version} (${execPath}).`,
    'Get Node.js 24 with: npm i -g --prefix ~/.node24 node@24 && export PATH=~/.node24/bin:$PATH   (or: nvm install 24 && nvm use 24)',
    '',
  ].join('\n')
}
