// NAT files written by hand to every published layout (test/fixtures/published-layouts, with its
// README), each read and mapped with the outcome held in golden.json: the layout each file was read
// as, every problem, and the programs carried. Then the rules those goldens stand for, one by one.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readNatEntries } from '../src/index.ts'
import { FIXTURES, mapCase, readCase, summaryOf } from './support/published-layouts.ts'

const golden = JSON.parse(readFileSync(join(FIXTURES, 'golden.json'), 'utf8')) as Record<string, unknown>
const layoutOf = (name: string, file: string, only = false) =>
  readCase(name, { only }).files.find((found) => found.file === file)?.layout

describe('published NAT layouts, golden', () => {
  for (const name of [
    'national',
    'nat00030-130',
    'nat00030-130-and-a',
    'state-extension',
    'release-7.0',
    'ctrl-z',
    'one-run',
  ]) {
    it(`${name}: read and mapped as golden.json holds`, () => {
      const read = readCase(name)
      assert.deepEqual(summaryOf(read, mapCase(read)), golden[name])
    })
  }
  it('empty: read and mapped as golden.json holds', () => {
    const read = readCase('empty', { only: true })
    assert.deepEqual(summaryOf(read, mapCase(read)), golden.empty)
  })
})

describe('every published layout is read, and each file says which', () => {
  it('NAT00030 at 114 characters is the national layout', () => {
    assert.equal(layoutOf('national', 'NAT00030.txt'), 'AVETMISS 8.0 NAT00030, 114 characters (national)')
  })

  it('NAT00030 at 130 characters is read with its classifications at 115-130, which the program carries', () => {
    const read = readCase('nat00030-130')
    assert.deepEqual(read.problems, [])
    assert.match(layoutOf('nat00030-130', 'NAT00030.txt')!, /^AVETMISS NAT00030, 130 characters/)
    const program = mapCase(read).records.find((record) => record.resourceType === 'Program')!.record
    assert.deepEqual(
      {
        recognition: program.programRecognition,
        level: program.programLevelOfEducation,
        field: program.programFieldOfEducation,
        anzsco: program.occupationCode,
        vet: program.vocationalTrainingIndicator,
      },
      {
        recognition: 'Training_package_qualification',
        level: 'Certificate_IV',
        field: '0803',
        anzsco: '511111',
        vet: true,
      },
    )
  })

  it('NAT00030 at 130 characters reads beside a NAT00030A, each program from its own file', () => {
    const read = readCase('nat00030-130-and-a')
    const mapped = mapCase(read)
    assert.deepEqual([...read.problems, ...mapped.problems], [])
    assert.deepEqual(
      mapped.records
        .filter((record) => record.resourceType === 'Program')
        .map((record) => record.record.programIdentifier)
        .sort(),
      ['BSB40120', 'LSS001'],
    )
  })

  it('NAT00080 and NAT00120 with state extension columns are read, the columns named and not carried', () => {
    const read = readCase('state-extension')
    const mapped = mapCase(read)
    assert.deepEqual([...read.problems, ...mapped.problems], [])
    assert.equal(
      layoutOf('state-extension', 'NAT00080.txt'),
      'AVETMISS 8.0 NAT00080, 347 characters, with state extension columns 348-362 (read, not carried)',
    )
    assert.equal(
      layoutOf('state-extension', 'NAT00120.txt'),
      'AVETMISS 8.0 NAT00120, 158 characters, with state extension columns 159-170 (read, not carried)',
    )
    // The same records as the national files give.
    const national = readCase('national')
    assert.deepEqual(
      mapped.records.map((record) => record.record),
      mapCase(national).records.map((record) => record.record),
    )
  })

  it('a release 7.0 file is named as one, once per file, and its lines are not refused one by one', () => {
    const read = readCase('release-7.0')
    const mapped = mapCase(read)
    assert.deepEqual(
      read.problems.map(({ file, line }) => ({ file, line })),
      [
        { file: 'NAT00080.txt', line: 0 },
        { file: 'NAT00120.txt', line: 0 },
      ],
    )
    for (const problem of read.problems) {
      assert.match(problem.message, /^This is a release 7\.0 file: /)
      assert.match(problem.correctiveAction!, /AVETMISS release 8\.0/)
    }
    assert.equal(layoutOf('release-7.0', 'NAT00120.txt'), 'AVETMISS release 7.0 (not read)')
    // NAT00085 names clients of the unread NAT00080: not one follow-on per line.
    assert.deepEqual(mapped.problems, [])
  })

  it('a trailing Ctrl-Z (0x1A) is the end of the file, not a line', () => {
    const read = readCase('ctrl-z')
    assert.deepEqual(read.problems, [])
    assert.equal(read.records.NAT00120.length, 2)
  })

  it('a set of zero-length files is one problem that says so, not "nothing to report"', () => {
    const read = readCase('empty', { only: true })
    assert.equal(read.problems.length, 1)
    assert.match(read.problems[0]!.message, /^Every NAT file of the set is empty/)
    assert.match(read.problems[0]!.correctiveAction!, /collection period/)
  })
})

describe('one run shows every problem of every line, and follow-ons name the line that could not be read', () => {
  it('delivery mode 303, predominant mode A and school type AB on one line are three problems of one run', () => {
    const read = readCase('one-run')
    const line1 = mapCase(read).problems.filter((problem) => problem.file === 'NAT00120.txt' && problem.line === 1)
    assert.deepEqual(
      line1.map(({ field, value }) => ({ field, value })),
      [
        { field: 'deliveryModeIdentifier', value: '303' },
        { field: 'predominantDeliveryMode', value: 'A' },
        { field: 'schoolTypeIdentifier', value: 'AB' },
      ],
    )
  })

  it('an activity of a client whose NAT00080 line could not be read says that line could not be read', () => {
    const read = readCase('one-run')
    const mapped = mapCase(read)
    const followOn = mapped.problems.find((problem) => problem.file === 'NAT00120.txt' && problem.line === 2)!
    assert.equal(
      followOn.message,
      'Line 2 of NAT00080 (client C000077778) could not be read; the activity is carried and refers to it',
    )
    assert.doesNotMatch(mapped.problems.map((problem) => problem.message).join('\n'), /is not in NAT00080/)
  })

  it('a completion whose activity line could not be read names that line, not a missing activity', () => {
    const read = readCase('completion-unread')
    assert.deepEqual(
      read.problems.map(({ file, line, field }) => ({ file, line, field })),
      [{ file: 'NAT00120.txt', line: 1, field: 'activityStartDate' }],
    )
    const [followOn] = mapCase(read).problems
    assert.equal(
      followOn!.message,
      'Line 1 of NAT00120 (client C000077777 in program BSB40120) could not be read, so the completion has no subject enrolment to belong to and is not carried',
    )
    assert.equal(followOn!.file, 'NAT00130.txt')
  })

  it('unreadable lines are kept for follow-ons up to a bound, and past it the follow-on still blames the unreadable lines', () => {
    // 10,005 NAT00080 lines with an impossible date of birth: reading stops after the first 1,000
    // (MAX_UNREADABLE_LINES_READ), and the other 9,005 are counted, not read.
    const lines = Array.from({ length: 10_005 }, (_, index) => {
      const id = `C${String(index).padStart(9, '0')}`
      return `${id}${' '.repeat(60)}12F31021990`
    })
    const big = readNatEntries([
      ...['NAT00010.txt', 'NAT00020.txt', 'NAT00030.txt', 'NAT00060.txt', 'NAT00085.txt'].map((name) => ({
        name,
        bytes: readFileSync(join(FIXTURES, 'national', name)),
      })),
      { name: 'NAT00080.txt', bytes: Buffer.from(lines.join('\r\n'), 'latin1') },
      {
        name: 'NAT00120.txt',
        bytes: Buffer.from(
          readFileSync(join(FIXTURES, 'national', 'NAT00120.txt'), 'latin1').replace(/C000077777/g, 'C000010004'),
          'latin1',
        ),
      },
    ])
    assert.equal(big.unreadable.lines.NAT00080.length, 1000)
    assert.equal(big.unreadable.omitted.NAT00080, 9005)
    const stopped = big.problems.filter((problem) => problem.file === 'NAT00080.txt' && problem.line === 1001)
    assert.deepEqual(
      stopped.map((problem) => problem.message),
      [
        'Reading of NAT00080.txt stopped at line 1001: 1000 of its lines could not be records, so its other 9005 lines were not read (each counted as a problem)',
      ],
    )
    assert.ok(big.problemCount >= 10_005, `every line counted: ${big.problemCount}`)
    const followOn = mapCase(big).problems.find(
      (problem) => problem.file === 'NAT00120.txt' && problem.value === 'C000010004',
    )!
    assert.equal(
      followOn.message,
      'Client C000010004 is not on a line of NAT00080 that could be read, and 10005 of its lines could not be read; the activity is carried and refers to it',
    )
  })

  it('every problem names its record by the file identifiers and says what to change in the SMS', () => {
    const read = readCase('one-run')
    for (const problem of [...read.problems, ...mapCase(read).problems]) {
      assert.ok(problem.record, `${problem.file} line ${problem.line}: ${problem.message}`)
      assert.match(problem.record!, /client C00007777\d/)
      assert.ok(problem.correctiveAction, `${problem.file} line ${problem.line}: ${problem.message}`)
      assert.doesNotMatch(`${problem.message} ${problem.correctiveAction}`, /[0-9a-f]{8}-[0-9a-f]{4}-|\$\./)
    }
    const schoolType = mapCase(read).problems.find((problem) => problem.field === 'schoolTypeIdentifier')!
    assert.equal(
      schoolType.correctiveAction,
      "In the SMS, set School type identifier of client C000077777, subject BSBWHS411, program BSB40120, location CBD01, starting 02/02/2026 to a code of the AVETMISS 8.0 list (the service's reference data school-type), and export the NAT files again.",
    )
  })
})
