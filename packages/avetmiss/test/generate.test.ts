// The NAT file set generator: a clean set reads and maps without a problem and looks like an RTO's; the
// same seed gives the same bytes; and each deliberate fault is exactly one problem of the reader or the
// mapping, at the file, line and field (and with the value) the generator says it planted.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  checkNatSet,
  type GeneratedNatFileSet,
  type GenerateNatFileSetOptions,
  generateNatFileSet,
  NAT_FAULT_KINDS,
  type NatFaultKind,
  type NatProblem,
  type NatReadResult,
  natToResources,
  type NatToResourcesResult,
  natZipBytes,
  type PlantedNatFault,
  readNatEntries,
  readNatZip,
  type ResourceType,
} from '../src/index.ts'
import { seedCodes, seedDatasets } from './support/reference-data.ts'
import { uploadFailures } from './support/upload-schemas.ts'
import { hasValidCheckCharacter } from '../../../src/modules/validation/rules/usi-check-character.ts'
import { postcodeProblem } from '../../../src/modules/validation/rules/postcode-agrees-with-state.ts'

const RTO = '90001'

function generate(options: Partial<GenerateNatFileSetOptions> = {}): GeneratedNatFileSet {
  return generateNatFileSet({
    activities: 600,
    seed: 'generator test',
    rtoCode: RTO,
    referenceData: seedDatasets,
    ...options,
  })
}

function readAndMap(generated: GeneratedNatFileSet): { read: NatReadResult; mapped: NatToResourcesResult } {
  const read = readNatEntries(generated.entries)
  return { read, mapped: natToResources(read, { rtoCode: RTO, codes: seedCodes }) }
}

/** Where a problem or a planted fault is, and its value: the fields both have, the absent ones left out. */
function where(problem: NatProblem | PlantedNatFault): Partial<NatProblem> {
  const { file, line, field, value } = problem
  return Object.fromEntries(Object.entries({ file, line, field, value }).filter(([, v]) => v !== undefined))
}

const byPlace = (a: Partial<NatProblem>, b: Partial<NatProblem>) =>
  a.file! !== b.file! ? (a.file! < b.file! ? -1 : 1) : a.line! - b.line!

/** The NAT checks' Errors (their Warnings, records nothing refers to and the like, are not faults). */
const checkErrorsOf = (read: NatReadResult) => checkNatSet(read).filter((finding) => finding.level === 'Error')

/** Every problem of reading and mapping, and every NAT check Error, in file and line order, as `where` gives them. */
function problemsOf(result: { read: NatReadResult; mapped: NatToResourcesResult }): Partial<NatProblem>[] {
  return [...result.read.problems, ...result.mapped.problems, ...checkErrorsOf(result.read)].map(where).sort(byPlace)
}

const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return counts
}

describe('a generated NAT file set without faults', () => {
  const generated = generate({ activities: 3000, asOf: '2026-09-15' })
  const { read, mapped } = readAndMap(generated)
  const activity = read.records.NAT00120

  it('reads and maps without a single problem, into as many records of each resource as its lines make', () => {
    assert.deepEqual(read.problems, [])
    assert.deepEqual(mapped.problems, [])
    assert.deepEqual(checkErrorsOf(read), [])
    assert.deepEqual(generated.faults, [])
    assert.deepEqual(
      read.files.map((file) => file.file),
      [
        'NAT00010.txt',
        'NAT00020.txt',
        'NAT00030.txt',
        'NAT00030A.txt',
        'NAT00060.txt',
        'NAT00080.txt',
        'NAT00085.txt',
        'NAT00090.txt',
        'NAT00100.txt',
        'NAT00120.txt',
        'NAT00130.txt',
      ],
    )
    const lines = generated.lineCounts
    assert.equal(lines.NAT00120, 3000)
    for (const [fileId, count] of Object.entries(lines)) {
      assert.equal(read.records[fileId as keyof typeof read.records].length, count, fileId)
    }
    const inProgram = activity.filter((row) => row.values.programIdentifier)
    const counts = countBy(mapped.records, (record) => record.resourceType)
    const expected: Record<ResourceType, number> = {
      DeliveryLocation: lines.NAT00020,
      Program: lines.NAT00030 + lines.NAT00030A,
      Subject: lines.NAT00060,
      Student: lines.NAT00080,
      ProgramOffering: new Set(inProgram.map((row) => row.values.programIdentifier)).size,
      SubjectOffering: new Set(
        activity.map(
          ({ values }) =>
            `${values.subjectIdentifier} ${values.programIdentifier} ${values.deliveryLocationIdentifier}`,
        ),
      ).size,
      ProgramEnrolment: new Set(inProgram.map(({ values }) => `${values.clientIdentifier} ${values.programIdentifier}`))
        .size,
      SubjectEnrolment: 3000,
    }
    assert.deepEqual(Object.fromEntries(counts), expected)
    const completions = mapped.records.filter(
      (record) => record.resourceType === 'ProgramEnrolment' && 'programCompletion' in record.record,
    )
    assert.equal(completions.length, lines.NAT00130)
    assert.ok(lines.NAT00130 > 0 && lines.NAT00090 > 0 && lines.NAT00100 > 0, JSON.stringify(lines))
  })

  it('maps to records the service’s upload takes as they are', () => {
    const refused = mapped.records.flatMap((record) =>
      uploadFailures(record.resourceType, record.record).map((failure) => `${record.resourceType}: ${failure.message}`),
    )
    assert.deepEqual(refused.slice(0, 5), [])
  })

  it('dates activity in the reporting year: results by the as-of date, continuing or not yet started after it', () => {
    const outcomes = countBy(activity, (row) => row.values.outcomeIdentifierNational!)
    assert.ok(outcomes.size >= 6, `outcomes mixed: ${JSON.stringify([...outcomes])}`)
    assert.ok(outcomes.get('20')! > activity.length / 3, 'most results are competency achieved')
    for (const { values, line } of activity) {
      const start = values.activityStartDate!
      const end = values.activityEndDate!
      assert.ok(start >= '2026-01-01' && end <= '2026-12-31' && start <= end, `line ${line}: ${start} to ${end}`)
      assert.ok(start <= '2026-09-30', `line ${line}: nothing starts after the quarter of the as-of date`)
      const outcome = values.outcomeIdentifierNational
      if (end > '2026-09-15') assert.ok(outcome === '70' || outcome === '85', `line ${line}: ${outcome} ends ${end}`)
      if (outcome === '85') assert.ok(start > '2026-09-15', `line ${line}: not yet started, from ${start}`)
    }
  })

  it('completes a program only with a competent result in every unit, on the last end date', () => {
    const byEnrolment = Map.groupBy(activity, (row) => `${row.values.clientIdentifier} ${row.values.programIdentifier}`)
    for (const completion of read.records.NAT00130) {
      const lines = byEnrolment.get(`${completion.values.clientIdentifier} ${completion.values.programIdentifier}`)!
      assert.ok(lines.length > 0)
      for (const row of lines) assert.ok(['20', '51', '60'].includes(row.values.outcomeIdentifierNational!))
      const last = lines.map((row) => row.values.activityEndDate!).sort()
      assert.equal(completion.values.dateProgramCompleted, last.at(-1))
      assert.ok(completion.values.dateProgramCompleted! <= '2026-09-15')
    }
    // A program enrolment's lines agree on commencing, funding and study reason; a short course says 8.
    for (const row of activity) {
      assert.equal(row.values.commencingProgramIdentifier === '8', !row.values.programIdentifier, `line ${row.line}`)
    }
    for (const lines of byEnrolment.values()) {
      if (!lines[0]!.values.programIdentifier) continue
      const answers = new Set(
        lines.map(
          ({ values }) =>
            `${values.commencingProgramIdentifier} ${values.fundingSourceNational} ${values.studyReasonIdentifier}`,
        ),
      )
      assert.equal(answers.size, 1)
    }
  })

  it('gives clients believable names, addresses, USIs and their NAT00085, NAT00090 and NAT00100 lines', () => {
    const contacts = new Map(read.records.NAT00085.map((row) => [row.values.clientIdentifier, row.values]))
    const disabled = new Set(read.records.NAT00090.map((row) => row.values.clientIdentifier))
    const achieved = new Set(read.records.NAT00100.map((row) => row.values.clientIdentifier))
    const states = new Map(seedDatasets.state!.map((record) => [record.avetmissCode, record.code]))
    for (const { values } of read.records.NAT00080) {
      const contact = contacts.get(values.clientIdentifier)!
      assert.ok(contact, `${values.clientIdentifier} has contact details`)
      assert.ok(values.nameForEncryption!.startsWith(`${contact.clientFamilyName}, ${contact.clientFirstGivenName}`))
      assert.match(contact.emailAddress!, /^[a-z]+\.[a-z]+\d+@example\.(com|net|org)$/)
      if (values.uniqueStudentIdentifier) assert.ok(hasValidCheckCharacter(values.uniqueStudentIdentifier))
      assert.equal(postcodeProblem(values.postcode!, states.get(values.stateIdentifier)), undefined)
      assert.equal(values.disabilityFlag === 'Y', disabled.has(values.clientIdentifier))
      assert.equal(values.priorEducationalAchievementFlag === 'Y', achieved.has(values.clientIdentifier))
      assert.ok(values.dateOfBirth! > '1950-01-01' && values.dateOfBirth! < '2012-01-01')
    }
    assert.ok(
      new Set(read.records.NAT00080.map((row) => row.values.nameForEncryption)).size >
        0.9 * generated.lineCounts.NAT00080,
    )
  })
})

describe('the same seed', () => {
  it('gives the same files byte for byte; another seed, other files', () => {
    const bytes = (generated: GeneratedNatFileSet) =>
      generated.entries.map((entry) => Buffer.from(entry.bytes).toString('latin1'))
    const faults = [
      { kind: 'impossible-date', count: 2 },
      { kind: 'unknown-code', count: 2 },
    ] as const
    const first = generate({ seed: 42, faults })
    assert.deepEqual(bytes(generate({ seed: 42, faults })), bytes(first))
    assert.deepEqual(generate({ seed: 42, faults }).faults, first.faults)
    assert.notDeepEqual(bytes(generate({ seed: 43, faults })), bytes(first))
  })

  it('gives the same data with faults or without: faults are planted in it, not drawn with it', () => {
    const clean = generate({ seed: 7 })
    const faulty = generate({ seed: 7, faults: [{ kind: 'duplicate-activity-key', count: 3 }] })
    // Three lines fewer are made, and three copies added: the clients before the last are the same.
    const text = (generated: GeneratedNatFileSet, name: string) =>
      Buffer.from(generated.entries.find((entry) => entry.name === name)!.bytes).toString('latin1')
    for (const name of ['NAT00010.txt', 'NAT00020.txt', 'NAT00030.txt', 'NAT00060.txt']) {
      assert.equal(text(faulty, name), text(clean, name), name)
    }
    assert.ok(
      text(clean, 'NAT00080.txt').startsWith(text(faulty, 'NAT00080.txt').split('\r\n').slice(0, -3).join('\r\n')),
    )
  })
})

/** Where each kind is found: by the reader (the line is lost) or by the mapping (the line is carried). */
const FOUND_BY: Record<NatFaultKind, 'reader' | 'mapping' | 'checks'> = {
  'record-too-long': 'reader',
  'non-numeric': 'reader',
  'impossible-date': 'reader',
  'missing-required': 'reader',
  'unknown-code': 'mapping',
  'client-not-in-nat00080': 'mapping',
  'duplicate-activity-key': 'mapping',
  'commencing-without-program': 'checks',
  'implausible-age': 'checks',
  'credit-with-delivery': 'checks',
}

describe('each kind of fault surfaces with exactly the planted file, line and field', () => {
  for (const kind of NAT_FAULT_KINDS) {
    it(`${kind}: three planted, three ${FOUND_BY[kind]} problems at their places, and no other problem`, () => {
      const generated = generate({ faults: [{ kind, count: 3 }] })
      assert.equal(generated.faults.length, 3)
      assert.ok(generated.faults.every((fault) => fault.kind === kind))
      const result = readAndMap(generated)
      assert.deepEqual(problemsOf(result), generated.faults.map(where))
      const foundHere =
        FOUND_BY[kind] === 'reader'
          ? result.read.problems
          : FOUND_BY[kind] === 'mapping'
            ? result.mapped.problems
            : checkErrorsOf(result.read)
      assert.equal(foundHere.length, 3)
      const wholeLine = kind === 'record-too-long' || kind === 'duplicate-activity-key'
      for (const fault of generated.faults) assert.equal(fault.field === undefined, wholeLine, JSON.stringify(fault))
      assert.equal(generated.lineCounts.NAT00120, 600)
    })
  }

  it('every kind at once, through a zip: exactly the planted problems, spread over the files', async () => {
    const generated = generate({
      activities: 1500,
      seed: 'all kinds',
      faults: NAT_FAULT_KINDS.map((kind) => ({ kind, count: 4 })),
    })
    assert.equal(generated.faults.length, 4 * NAT_FAULT_KINDS.length)
    const read = await readNatZip(natZipBytes(generated.entries))
    const mapped = natToResources(read, { rtoCode: RTO, codes: seedCodes })
    assert.deepEqual(problemsOf({ read, mapped }), generated.faults.map(where))
    // The NAT checks find theirs by name.
    assert.deepEqual(
      checkErrorsOf(read)
        .map((finding) => finding.check)
        .sort(),
      generated.faults
        .filter((fault) => FOUND_BY[fault.kind] === 'checks')
        .map((fault) => fault.kind)
        .sort(),
    )
    const files = new Set(generated.faults.map((fault) => fault.file))
    assert.ok(files.size >= 4, [...files].join(', '))
  })
})

describe('what the generator refuses', () => {
  const refuses = (options: Partial<GenerateNatFileSetOptions>, message: RegExp) =>
    assert.throws(() => generate(options), message)

  it('an unknown kind, a count that is not a whole number, or more faults than lines can take', () => {
    refuses({ faults: [{ kind: 'typo' as NatFaultKind, count: 1 }] }, /Unknown fault kind typo/)
    refuses({ faults: [{ kind: 'non-numeric', count: -1 }] }, /whole number/)
    refuses({ activities: 20, faults: [{ kind: 'impossible-date', count: 500 }] }, /No line is left/)
    refuses({ activities: 3, faults: [{ kind: 'duplicate-activity-key', count: 3 }] }, /at least 4/)
  })

  it('a date outside its year, and reference data without a dataset it needs', () => {
    refuses({ year: 2026, asOf: '2027-01-01' }, /in 2026/)
    const { gender: _, ...withoutGender } = seedDatasets
    refuses({ referenceData: withoutGender }, /no dataset gender/)
  })
})
