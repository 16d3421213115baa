// The package is publish-ready: it builds to plain JavaScript with declarations, and the built
// files work on their own (the SDK's exports and the CLI).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const PACKAGE = new URL('..', import.meta.url).pathname
const TSC = new URL('../../../node_modules/.bin/tsc', import.meta.url).pathname

describe('@vetrs/client package', () => {
  it('builds to dist with declarations, and the built SDK and CLI run without the sources', async () => {
    // Inside the package, so its dependencies resolve as they would for an installed copy.
    const out = await mkdtemp(join(PACKAGE, '.dist-test-'))
    try {
      await run(TSC, ['-p', join(PACKAGE, 'tsconfig.build.json'), '--outDir', out])
      const sdk = await import(join(out, 'index.js'))
      assert.equal(typeof sdk.Vetrs, 'function')
      assert.equal(typeof sdk.FileReferenceStore, 'function')
      assert.equal(sdk.defaultLimits.compressedBytes, 1024 * 1024)
      const { stdout } = await run(process.execPath, [join(out, 'cli', 'main.js'), '--help'])
      assert.match(stdout, /reference-data/)
      const { stdout: declarations } = await run('ls', [out])
      assert.match(declarations, /index\.d\.ts/)
    } finally {
      await rm(out, { recursive: true, force: true })
    }
  })
})
