// The CLI as a newcomer and a script use it: real processes (`node packages/cli/bin/vetrs.js`)
// against a real service. The README's quick start, a validation failure fixed and resubmitted,
// the other workflows, reference data sync, --json, and the exit codes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import type { IncomingMessage } from 'node:http'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { newRto, startTestService, type TestRto, type TestService } from '../../client/test/support/service.ts'
import { freePort, world } from '../../../test/support/index.ts'

const run = promisify(execFile)
const BIN = new URL('../bin/vetrs.js', import.meta.url).pathname
const EXAMPLES = new URL('../../../examples/minimal-unit-record/', import.meta.url).pathname
const CLI_PACKAGE = new URL('../package.json', import.meta.url)
const SDK_PACKAGE = new URL('../../client/package.json', import.meta.url)
const versionOf = async (file: URL): Promise<string> => JSON.parse(await readFile(file, 'utf8')).version

interface Ran {
  code: number
  stdout: string
  stderr: string
}

describe('vetrs CLI', () => {
  let t: TestService
  let scratch: string
  before(async () => {
    t = await startTestService()
    scratch = await mkdtemp(join(tmpdir(), 'vetrs-cli-'))
  })
  after(async () => {
    await t.close()
    await rm(scratch, { recursive: true, force: true })
  })

  /** A CLI user of a new RTO with a configuration file of their own. */
  async function user(): Promise<{ rto: TestRto; config: string; vetrs: (...args: string[]) => Promise<Ran> }> {
    const rto = await newRto(t)
    const config = join(scratch, `${rto.clientId}.json`)
    const vetrs = async (...args: string[]): Promise<Ran> => {
      try {
        const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
          env: { ...process.env, VETRS_CONFIG: config, VETRS_URL: '', VETRS_CLIENT_ID: '', VETRS_CLIENT_SECRET: '' },
          timeout: 120_000,
        })
        return { code: 0, stdout, stderr }
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string }
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
      }
    }
    return { rto, config, vetrs }
  }

  async function folderOf(records: Record<string, unknown>[], name: string): Promise<string> {
    const dir = join(scratch, name)
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir, { recursive: true })
    for (const [i, record] of records.entries())
      await writeFile(join(dir, `${String(i).padStart(2, '0')}.json`), JSON.stringify(record))
    return dir
  }

  it('quick start: login, upload examples/minimal-unit-record, submit (three commands, exit 0)', async () => {
    const { rto, config, vetrs } = await user()
    const login = await vetrs(
      'login',
      '--url',
      t.baseUrl,
      '--client-id',
      rto.clientId,
      '--client-secret',
      rto.clientSecret,
    )
    assert.equal(login.code, 0, login.stderr)
    assert.match(login.stdout, /Logged in/)
    assert.equal((await stat(config)).mode & 0o777, 0o600, 'the stored secret is readable by its owner only')
    const upload = await vetrs('upload', EXAMPLES)
    assert.equal(upload.code, 0, upload.stderr)
    assert.match(upload.stdout, /9 of 9 records uploaded/)
    const submit = await vetrs('submit')
    assert.equal(submit.code, 0, submit.stderr + submit.stdout)
    assert.match(submit.stdout, /Submitted batch \S+: 9 records are now held/)
  })

  it('a newcomer reads a validation failure (exit 3, rule, access paths, corrective action), fixes the record and resubmits', async () => {
    const { rto, vetrs } = await user()
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    const w = await world()
    const broken = { ...w.student, surveyAvailability: 'Available' } as Record<string, unknown>
    delete broken.emailAddressPrimary
    const dir = await folderOf([broken, ...Object.values(w).slice(1)], 'newcomer')
    assert.equal((await vetrs('upload', dir)).code, 0)
    const validated = await vetrs('validate', '--wait')
    assert.equal(validated.code, 3, validated.stderr)
    assert.match(validated.stdout, /BRTS01180/)
    assert.match(validated.stdout, /emailAddressPrimary/)
    assert.match(validated.stdout, /Error/)
    assert.match(validated.stdout, /Fix the records named/)
    const refused = await vetrs('submit')
    assert.equal(refused.code, 3)
    assert.match(refused.stdout, /Not submitted/)
    const fixed = join(scratch, 'fixed-student.json')
    await writeFile(fixed, JSON.stringify(w.student))
    assert.equal((await vetrs('upload', fixed)).code, 0)
    const submitted = await vetrs('submit')
    assert.equal(submitted.code, 0, submitted.stderr)
    assert.match(submitted.stdout, /9 records are now held/)
  })

  it('upload stores every record the service accepts and lists each refused one with its access paths, through the bulk upload', async () => {
    const { rto, vetrs } = await user()
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    const w = await world()
    const good = Object.values(w) as Record<string, unknown>[]
    // Refused by the structure check: a value outside its code list, and a UID that is not a UUID v4.
    const badGender = { ...w.student, studentUID: '3a0c1b9e-7d4f-4c2a-9b1e-5f6a7b8c9d01', gender: 'Q' }
    const badUid = { ...w.student, studentUID: 'not-a-uuid' }
    // The refused ones in the middle, so records after them must be sent again once the request is refused.
    const dir = await folderOf([...good.slice(0, 4), badGender, ...good.slice(4, 7), badUid, ...good.slice(7)], 'mixed')
    const upload = await vetrs('--json', 'upload', dir)
    assert.equal(upload.code, 1, upload.stderr)
    const outcome = JSON.parse(upload.stdout) as {
      transactionBatchToken: string
      uploaded: number
      bulk: boolean
      failures: { resourceType: string; uid: string; errors: { accessPath: string }[] }[]
    }
    assert.equal(outcome.bulk, true, 'the service offers the bulk upload, so the CLI uses it')
    assert.equal(outcome.uploaded, good.length)
    assert.deepEqual(outcome.failures.map((f) => f.uid).sort(), ['3a0c1b9e-7d4f-4c2a-9b1e-5f6a7b8c9d01', 'not-a-uuid'])
    const paths = outcome.failures.flatMap((f) => f.errors.map((e) => e.accessPath))
    assert.ok(paths.includes('$.gender'), paths.join(', '))
    assert.ok(paths.includes('$.studentUID'), paths.join(', '))
    const show = await vetrs('--json', 'batch', 'show', outcome.transactionBatchToken)
    assert.equal(show.code, 0, `batch show: ${show.stderr}`)
    const shown = JSON.parse(show.stdout)
    assert.equal(shown.totalRecords, good.length, JSON.stringify(shown))
  })

  it('batch create|list|show|discard, with --json for scripts', async () => {
    const { rto, vetrs } = await user()
    await vetrs(
      'login',
      '--url',
      t.baseUrl,
      '--client-id',
      rto.clientId,
      '--client-secret',
      rto.clientSecret,
      '--jurisdiction',
      'VIC',
    )
    const created = JSON.parse((await vetrs('--json', 'batch', 'create')).stdout)
    assert.equal(created.jurisdiction, 'VIC')
    const listed = JSON.parse((await vetrs('--json', 'batch', 'list')).stdout)
    assert.deepEqual(
      listed.map((b: { transactionBatchToken: string }) => b.transactionBatchToken),
      [created.transactionBatchToken],
    )
    const shown = await vetrs('batch', 'show')
    assert.match(shown.stdout, new RegExp(`Batch ${created.transactionBatchToken} \\(VIC\\): NotSubmitted, 0 records`))
    assert.equal((await vetrs('batch', 'discard')).code, 0)
    assert.deepEqual(JSON.parse((await vetrs('--json', 'batch', 'list')).stdout), [])
  })

  it('void, reconcile, assess and declare from the command line', async () => {
    const { rto, vetrs } = await user()
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    const w = await world()
    const dir = await folderOf(Object.values(w), 'workflows')
    await vetrs('upload', dir)
    assert.equal((await vetrs('submit')).code, 0)

    const reconciled = JSON.parse(
      (await vetrs('--json', 'reconcile', dir, '--type', 'SubjectEnrolment', '--period', '202604')).stdout,
    )
    assert.deepEqual([reconciled.matched.length, reconciled.notHeld.length, reconciled.heldOnly.length], [2, 0, 0])

    const enrolment = join(scratch, 'enrolment.json')
    await writeFile(enrolment, JSON.stringify(w.subjectEnrolment))
    const voided = await vetrs('void', enrolment)
    assert.equal(voided.code, 0, voided.stderr + voided.stdout)
    assert.match(voided.stdout, /Voided in submission/)

    const assessed = await vetrs('assess', '--period', '202604')
    assert.equal(assessed.code, 0, assessed.stderr)
    assert.match(assessed.stdout, /: Validated/)
    assert.match(assessed.stdout, /Ready to declare/)
    assert.equal(
      (await vetrs('declare', '--period', '202604', '--name', 'Alex Citizen', '--email', 'alex@example.edu.au')).code,
      2,
      'without --accept',
    )
    const declared = await vetrs(
      'declare',
      '--period',
      '202604',
      '--name',
      'Alex Citizen',
      '--email',
      'alex@example.edu.au',
      '--accept',
    )
    assert.equal(declared.code, 0, declared.stderr)
    assert.match(declared.stdout, /Declaration saved for reporting period 202604 and jurisdiction NSW\./)
  })

  it('declare before any assessment: exit 1 with the reason; blocking assessment outcomes: exit 3', async () => {
    const { rto, vetrs } = await user()
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    const refused = await vetrs('declare', '--period', '202604', '--name', 'A', '--email', 'a@b', '--accept')
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /reason: assessment-not-requested/)
    // Two student records with one USI: DQTS10050, the blocking (Error) assessment rule.
    const dir = await folderOf([...Object.values(await world()), ...Object.values(await world())], 'blocking')
    await vetrs('upload', dir)
    assert.equal((await vetrs('submit')).code, 0)
    const assessed = await vetrs('assess', '--period', '202604')
    assert.equal(assessed.code, 3, assessed.stderr)
    assert.match(assessed.stdout, /DQTS10050/)
    const blocked = await vetrs('declare', '--period', '202604', '--name', 'A', '--email', 'a@b', '--accept')
    assert.equal(blocked.code, 3)
    assert.match(blocked.stderr, /reason: blocking-assessment-outcomes/)
  })

  it('reference-data sync <dataset> --out dir: a full load, then an incremental run from the stored watermark', async () => {
    const { rto, vetrs } = await user()
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    const out = join(scratch, 'reference')
    const first = JSON.parse((await vetrs('--json', 'reference-data', 'sync', 'study-reason', '--out', out)).stdout)
    assert.equal(first.changedSince, '1901-01-01T00:00:00Z')
    assert.ok(first.held > 5)
    const watermark = JSON.parse(await readFile(join(out, 'study-reason.watermark.json'), 'utf8')).changedSince
    assert.equal(watermark, first.watermark)
    const second = await vetrs('reference-data', 'sync', 'study-reason', '--out', out)
    assert.match(second.stdout, new RegExp(`since ${first.watermark.replace(/[.]/g, '\\.')}`))
  })

  it('--version (and -V) prints the versions of the CLI, the SDK and Node.js, exit 0', async () => {
    const { vetrs } = await user()
    const [cli, sdk] = await Promise.all([versionOf(CLI_PACKAGE), versionOf(SDK_PACKAGE)])
    for (const flag of ['--version', '-V']) {
      const ran = await vetrs(flag)
      assert.equal(ran.code, 0, ran.stderr)
      assert.equal(ran.stdout, `vetrs ${cli} (@vetrs/client ${sdk}, Node.js ${process.versions.node})\n`)
    }
  })

  it('its requests reach the service naming the SDK, then the CLI, in the User-Agent', async () => {
    const { rto, vetrs } = await user()
    const agents = new Set<string | undefined>()
    const listener = (request: IncomingMessage) => agents.add(request.headers['user-agent'])
    t.service.app.server.on('request', listener)
    try {
      await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
      assert.equal((await vetrs('batch', 'create')).code, 0)
    } finally {
      t.service.app.server.off('request', listener)
    }
    const [cli, sdk] = await Promise.all([versionOf(CLI_PACKAGE), versionOf(SDK_PACKAGE)])
    assert.deepEqual([...agents], [`vetrs-client/${sdk} node/${process.versions.node} vetrs-cli/${cli}`])
  })

  it('login with a wrong secret says once, plainly, that the service refused the credentials and what to check (exit 1)', async () => {
    const { rto, vetrs } = await user()
    const login = await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', 'wrong')
    assert.equal(login.code, 1)
    assert.equal(login.stdout, '')
    const [first, second] = login.stderr.split('\n')
    assert.equal(
      first,
      `error: the service at ${t.baseUrl} refused the client credentials (POST /oauth2/token answered 401: Client authentication failed)`,
    )
    assert.match(
      second ?? '',
      /^ {2}check the client ID and secret \(--client-id and --client-secret, or VETRS_CLIENT_ID/,
    )
    assert.equal(login.stderr.split('Client authentication failed').length - 1, 1, login.stderr)
  })

  it('login with a URL where nothing listens says the connection was refused and does not retry (exit 1)', async () => {
    const { rto, vetrs } = await user()
    const url = `http://127.0.0.1:${await freePort()}`
    const login = await vetrs('login', '--url', url, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    assert.equal(login.code, 1)
    assert.equal(
      login.stderr.split('\n')[0],
      `error: POST ${url}/oauth2/token got no answer: the connection to ${url} was refused (nothing listens there)`,
    )
    assert.match(login.stderr, /check the URL \(--url or VETRS_URL/)
    // No back-off: the CLI prints "retrying in N ms" for every retry the SDK makes (context.ts), so
    // none was made. No clock: the run took 16.9 s once at load 20 with nothing retried.
    assert.doesNotMatch(login.stderr, /retrying|fetch failed/)
  })

  it('exit codes: 2 for usage and configuration errors, 1 for service errors', async () => {
    const { rto, vetrs } = await user()
    assert.equal((await vetrs('batch', 'list')).code, 2, 'not logged in')
    assert.equal((await vetrs('no-such-command')).code, 2)
    await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', rto.clientSecret)
    assert.equal((await vetrs('--jurisdiction', 'XX', 'batch', 'list')).code, 2)
    assert.equal((await vetrs('upload', join(scratch, 'missing'))).code, 2)
    const missing = await vetrs('batch', 'show', 'no-such-batch')
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /404/)
    const badLogin = await vetrs('login', '--url', t.baseUrl, '--client-id', rto.clientId, '--client-secret', 'wrong')
    assert.equal(badLogin.code, 1)
  })
})

describe('vetrs on a Node.js too old for it', () => {
  const ROOT = new URL('../../../', import.meta.url).pathname
  /** Runs a file with `node`, optionally made to report an older version (a preload replaces process.versions.node). */
  function runOn(node: string, args: string[], fakeVersion?: string) {
    const preload = fakeVersion
      ? ['--import', `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${fakeVersion}"})`]
      : []
    return spawnSync(node, [...preload, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
  }
  const INSTALL_LINE = 'Get Node.js 24 with: npm i -g --prefix ~/.node24 node@24 && export PATH=~/.node24/bin:$PATH'

  it('says which Node.js it needs and how to get it, exit 1, no stack and no registerHooks SyntaxError: the message npm start gives', async () => {
    const engines = JSON.parse(await readFile(CLI_PACKAGE, 'utf8')).engines.node as string
    const cli = runOn(process.execPath, [BIN, 'login', '--help'], '20.11.1')
    assert.equal(cli.status, 1)
    assert.equal(cli.stdout, '')
    assert.doesNotMatch(cli.stderr, /SyntaxError|registerHooks|\n\s+at /)
    const needs = `needs Node.js ${engines.replace('>=', '')} or later (24 LTS recommended); this is Node.js 20.11.1 (${process.execPath}).`
    assert.equal(
      cli.stderr,
      `vetrs (the VET Reporting Service CLI) ${needs}\n${INSTALL_LINE}   (or: nvm install 24 && nvm use 24)\n`,
    )
    // npm start's launcher, under the same Node.js, says the same after its subject.
    const start = runOn(process.execPath, ['src/start.mjs', 'src/main.ts'], '20.11.1')
    assert.equal(start.status, 1)
    assert.equal(start.stderr.replace(/^.*? needs /, ''), cli.stderr.replace(/^.*? needs /, ''))
  })

  it('on a real Node.js 20 (/usr/bin/node), the same message', {
    skip: /^(1\d|20|21)\./.test(systemVersion()) ? false : `no Node.js older than 22 at /usr/bin/node`,
  }, () => {
    const cli = runOn('/usr/bin/node', [BIN, '--version'])
    assert.equal(cli.status, 1)
    assert.match(
      cli.stderr,
      new RegExp(
        `^vetrs \\(the VET Reporting Service CLI\\) needs Node\\.js .* this is Node\\.js ${systemVersion().replaceAll('.', '\\.')} `,
      ),
    )
    assert.ok(cli.stderr.includes(INSTALL_LINE))
    assert.doesNotMatch(cli.stderr, /SyntaxError|registerHooks/)
  })

  function systemVersion(): string {
    return existsSync('/usr/bin/node')
      ? spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
      : ''
  }
})
