// Both packages are publish-ready: @vetrs/client builds to plain JavaScript with declarations and
// runs with no dependency installed at all; @vetrs/cli owns the command-line dependencies, builds
// against the built SDK and NAT library (not their sources), and its bin runs from the build.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CLIENT = new URL('..', import.meta.url).pathname
const CLI = new URL('../../cli/', import.meta.url).pathname
const AVETMISS = new URL('../../avetmiss/', import.meta.url).pathname
const TSC = new URL('../../../node_modules/.bin/tsc', import.meta.url).pathname

const manifest = async (dir: string) => JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))

/** Copies what `npm pack` would (the manifest's files, and package.json) into an installed package's folder. */
async function install(from: string, to: string, built: string): Promise<void> {
  await mkdir(to, { recursive: true })
  for (const file of (await manifest(from)).files as string[]) {
    if (file === 'dist') await cp(built, join(to, 'dist'), { recursive: true })
    else await cp(join(from, file), join(to, file), { recursive: true })
  }
  await cp(join(from, 'package.json'), join(to, 'package.json'))
}

describe('@vetrs/client and @vetrs/cli packages', () => {
  // Inside packages/cli, so the CLI's own dependencies (commander, cli-progress) resolve from the
  // repository's node_modules as they would from an installation's.
  let work: string
  let sdkBuild: string
  before(async () => {
    work = await mkdtemp(join(CLI, '.dist-test-'))
    sdkBuild = join(work, 'client-dist')
    await run(TSC, ['-p', join(CLIENT, 'tsconfig.build.json'), '--outDir', sdkBuild])
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('the SDK has no runtime dependencies: none in its package.json (commander and cli-progress belong to the CLI), and no bin', async () => {
    const sdk = await manifest(CLIENT)
    assert.deepEqual(Object.keys({ ...sdk.dependencies, ...sdk.peerDependencies, ...sdk.optionalDependencies }), [])
    assert.equal(sdk.bin, undefined)
    const cli = await manifest(CLI)
    assert.deepEqual(Object.keys(cli.dependencies).sort(), [
      '@vetrs/avetmiss',
      '@vetrs/client',
      'cli-progress',
      'commander',
      'csv-stringify',
    ])
    assert.equal(cli.dependencies['@vetrs/client'], `^${sdk.version}`, 'the CLI depends on this SDK version')
    assert.equal(cli.bin.vetrs, './bin/vetrs.js')
  })

  it('the built SDK, installed where no node_modules can be reached, loads and names its version', async () => {
    const alone = await mkdtemp(join(tmpdir(), 'vetrs-sdk-alone-'))
    try {
      await install(CLIENT, join(alone, 'node_modules', '@vetrs', 'client'), sdkBuild)
      const declarations = await readdir(join(alone, 'node_modules', '@vetrs', 'client', 'dist'))
      assert.ok(declarations.includes('index.d.ts'))
      assert.ok(!declarations.includes('cli'), 'no CLI inside the SDK')
      await writeFile(
        join(alone, 'consumer.mjs'),
        `import * as sdk from '@vetrs/client'
const client = new sdk.Vetrs({ baseUrl: 'http://127.0.0.1:9', credentials: { clientId: 'a', clientSecret: 'b' }, appInfo: { name: 'AcmeSMS', version: '4.2' } })
console.log(JSON.stringify({
  exports: Object.keys(sdk).sort(),
  version: sdk.VERSION,
  userAgent: client.userAgent,
  timeoutMs: client.timeoutMs,
  reason: sdk.ConflictReason.ValidationStale,
  timeoutIsNetwork: new sdk.TimeoutError('GET', '/x', 5) instanceof sdk.NetworkError,
}))
`,
      )
      const { stdout } = await run(process.execPath, [join(alone, 'consumer.mjs')], { cwd: alone })
      const seen = JSON.parse(stdout)
      const version = (await manifest(CLIENT)).version
      assert.equal(seen.version, version)
      assert.equal(seen.userAgent, `vetrs-client/${version} node/${process.versions.node} AcmeSMS/4.2`)
      assert.equal(seen.timeoutMs, 60_000)
      assert.equal(seen.reason, 'validation-stale')
      assert.equal(seen.timeoutIsNetwork, true)
      assert.ok(seen.exports.includes('Vetrs'))
      assert.ok(!seen.exports.includes('VetrsClient'), 'one client class')
      assert.ok(!seen.exports.includes('run'), 'no CLI entry point')
    } finally {
      await rm(alone, { recursive: true, force: true })
    }
  })

  it('the CLI builds against the built SDK and NAT library, and the built `vetrs` answers --version and --help', async () => {
    const modules = join(work, 'node_modules', '@vetrs')
    await install(CLIENT, join(modules, 'client'), sdkBuild)
    const avetmissBuild = join(work, 'avetmiss-dist')
    await run(TSC, ['-p', join(AVETMISS, 'tsconfig.build.json'), '--outDir', avetmissBuild])
    await install(AVETMISS, join(modules, 'avetmiss'), avetmissBuild)
    // The CLI imports @vetrs/client and @vetrs/avetmiss by name: compile it against their published declarations.
    const tsconfig = join(work, 'tsconfig.cli.json')
    await writeFile(
      tsconfig,
      JSON.stringify({
        extends: join(CLI, 'tsconfig.build.json'),
        compilerOptions: {
          outDir: join(work, 'cli-dist'),
          paths: {
            '@vetrs/client': [join(modules, 'client', 'dist', 'index.d.ts')],
            '@vetrs/avetmiss': [join(modules, 'avetmiss', 'dist', 'index.d.ts')],
          },
        },
      }),
    )
    await run(TSC, ['-p', tsconfig])
    const built = await readdir(join(work, 'cli-dist'))
    assert.ok(built.includes('main.js') && built.includes('main.d.ts'))
    assert.ok(!built.includes('client.js'), 'the SDK is a dependency, not compiled into the CLI')
    await install(CLI, join(modules, 'cli'), join(work, 'cli-dist'))
    const bin = join(modules, 'cli', 'bin', 'vetrs.js')
    const { stdout: version } = await run(process.execPath, [bin, '--version'])
    const [cliVersion, sdkVersion] = [(await manifest(CLI)).version, (await manifest(CLIENT)).version]
    assert.equal(version.trim(), `vetrs ${cliVersion} (@vetrs/client ${sdkVersion}, Node.js ${process.versions.node})`)
    const { stdout: help } = await run(process.execPath, [bin, '--help'])
    assert.match(help, /reference-data/)
    assert.match(help, /\bnat\b/)
  })
})
