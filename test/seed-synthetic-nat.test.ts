// `npm run seed:synthetic -- nat`: a NAT file set written to a zip or a folder by the real script, with no
// service and no database, its codes from the reference data's seed files, and its faults listed where
// the reader and the mapping find them. Two processes in all: starting one is the costly part.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
// By path, not by name: the test runner does not resolve @vetrs/avetmiss to its sources (the script
// does, with --conditions=vetrs-source in package.json).
import {
  codeTranslatorFrom,
  generateNatFileSet,
  natToResources,
  type PlantedNatFault,
  readNatFolder,
  readNatZip,
} from '../packages/avetmiss/src/index.ts'
import { readSeedReferenceData } from '../src/modules/reference-data/index.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the seed:synthetic script as package.json says to, with `args` after it. */
async function seedSynthetic(args: string[]): Promise<Outcome> {
  const scripts = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
  const [command, ...scriptArgs] = scripts['seed:synthetic']!.split(' ')
  assert.equal(command, 'node')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...scriptArgs, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('npm run seed:synthetic -- nat', () => {
  let work: string
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'vetrs-seed-nat-'))
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('writes a zip with the faults asked for, lists them, and each is a problem at its file, line and field', async () => {
    const zip = join(work, 'set.zip')
    const faultsFile = join(work, 'faults.json')
    const outcome = await seedSynthetic([
      'nat',
      ...['--out', zip, '--activities', '800', '--seed', 'cli', '--as-of', '2026-06-30'],
      ...['--fault', 'impossible-date=2', '--fault', 'unknown-code=2', '--fault', 'duplicate-activity-key'],
      ...['--faults-file', faultsFile],
    ])
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.match(outcome.stdout, /^NAT file set for RTO 90001, 2026 as of 2026-06-30, seed cli: 800 activities, /)
    assert.match(outcome.stdout, /5 fault\(s\) planted:/)

    const faults = JSON.parse(await readFile(faultsFile, 'utf8')) as PlantedNatFault[]
    assert.deepEqual(faults.map((fault) => fault.kind).sort(), [
      'duplicate-activity-key',
      'impossible-date',
      'impossible-date',
      'unknown-code',
      'unknown-code',
    ])
    for (const fault of faults) {
      const listed = `${fault.kind.padEnd(24)} ${fault.file} line ${fault.line}${fault.field ? ` field ${fault.field}` : ''}`
      assert.ok(outcome.stdout.includes(listed), `${listed} in:\n${outcome.stdout}`)
    }

    const read = await readNatZip(zip)
    const codes = codeTranslatorFrom(await readSeedReferenceData())
    const mapped = natToResources(read, { rtoCode: '90001', codes })
    const found = [...read.problems, ...mapped.problems].map(({ file, line, field }) => ({ file, line, field }))
    const planted = faults.map(({ file, line, field }) => ({ file, line, field }))
    const order = (a: { file: string; line: number }, b: { file: string; line: number }) =>
      a.file.localeCompare(b.file) || a.line - b.line
    assert.deepEqual(found.sort(order), planted.sort(order))
  })

  it('writes a folder without faults that reads and maps cleanly, the same files as the generator gives for the seed', async () => {
    const folder = join(work, 'folder')
    const outcome = await seedSynthetic([
      'nat',
      '--out',
      folder,
      '--activities',
      '300',
      '--seed',
      '5',
      '--year',
      '2025',
    ])
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.match(outcome.stdout, /2025 as of 2025-12-31, seed 5: 300 activities/)
    assert.doesNotMatch(outcome.stdout, /planted/)

    const referenceData = await readSeedReferenceData()
    const expected = generateNatFileSet({ activities: 300, seed: '5', rtoCode: '90001', referenceData, year: 2025 })
    assert.deepEqual((await readdir(folder)).sort(), expected.entries.map((entry) => entry.name).sort())
    for (const entry of expected.entries) {
      assert.deepEqual(await readFile(join(folder, entry.name)), Buffer.from(entry.bytes), entry.name)
    }
    const read = await readNatFolder(folder)
    assert.deepEqual(read.problems, [])
    assert.deepEqual(natToResources(read, { rtoCode: '90001', codes: codeTranslatorFrom(referenceData) }).problems, [])
  })
})
