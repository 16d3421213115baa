// `vetrs nat import` on sets of which no line can be read, as real processes and without a service:
// zero-length files and release 7.0 files are said plainly, and the command fails (exit 3) instead of
// reporting "Nothing to report" with success.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const BIN = new URL('../bin/vetrs.js', import.meta.url).pathname
const FIXTURES = new URL('../../avetmiss/test/fixtures/published-layouts/', import.meta.url).pathname

describe('vetrs nat import when no line can be read', () => {
  let scratch: string
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-nat-nothing-'))
  })
  after(() => rm(scratch, { recursive: true, force: true }))

  const vetrs = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        // No configuration and no service: nothing is asked of one.
        env: { ...process.env, VETRS_CONFIG: join(scratch, 'none.json'), VETRS_URL: 'http://127.0.0.1:9' },
        timeout: 60_000,
      })
      return { code: 0, stdout, stderr }
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string }
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
    }
  }

  it('a set of zero-length files says every file is empty and exits 3', async () => {
    const folder = join(scratch, 'empty')
    await cp(join(FIXTURES, 'empty'), folder, { recursive: true })
    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC')
    assert.equal(ran.code, 3, ran.stderr + ran.stdout)
    assert.match(ran.stdout, /Every NAT file of the set is empty/)
    assert.match(ran.stdout, /collection period/)
    assert.doesNotMatch(ran.stdout, /Nothing to report/)
  })

  it('release 7.0 files are named as such once each, as --json too', async () => {
    const folder = join(scratch, 'release-7.0')
    await cp(join(FIXTURES, 'release-7.0'), folder, { recursive: true })
    const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC', '--json')
    assert.equal(ran.code, 3, ran.stderr + ran.stdout)
    const outcome = JSON.parse(ran.stdout)
    // Each 7.0 file once (the set's other files are missing from this folder, and said so).
    assert.deepEqual(
      outcome.findings
        .filter((finding: { message: string }) => finding.message.startsWith('This is a release 7.0 file:'))
        .map((finding: { nat: { text: string }[] }) => finding.nat[0]!.text),
      ['NAT00080 (the whole file)', 'NAT00120 (the whole file)'],
    )
    assert.deepEqual(
      outcome.files.map((file: { layout: string }) => file.layout),
      ['AVETMISS release 7.0 (not read)', 'AVETMISS release 7.0 (not read)'],
    )
  })

  it('a UTF-16 file or a NUL byte is refused with its file and line, exit 2, before any service is asked', async () => {
    for (const [what, name, bytes, line] of [
      [
        'UTF-16',
        'NAT00080.txt',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('C0001     Smith\r\n', 'utf16le')]),
        1,
      ],
      ['NUL', 'NAT00120.txt', Buffer.from('line one\r\nline two\r\nline\0three\r\n', 'latin1'), 3],
    ] as const) {
      const folder = await mkdtemp(join(scratch, 'undecodable-'))
      await writeFile(join(folder, name), bytes)
      const ran = await vetrs('nat', 'import', folder, '--jurisdiction', 'VIC')
      assert.equal(ran.code, 2, `${what}: ${ran.stderr}${ran.stdout}`)
      assert.match(ran.stderr, new RegExp(`${name.replace('.', '\\.')} line ${line} `), what)
      assert.match(ran.stderr, what === 'NUL' ? /NUL byte/ : /UTF-16/, what)
    }
  })
})
