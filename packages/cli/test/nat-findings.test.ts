// How `vetrs nat import` tells what it found, without a service or a process: a reader problem, a
// validation result on a mapped record, and one on a held record the files did not give, each at its
// NAT place; and the CSV report, read back with a CSV parser.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { registerHooks } from 'node:module'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import {
  codeTranslatorFrom,
  generateNatFileSet,
  natTermsOf,
  natToResources,
  originIndexOf,
  readNatEntries,
} from '../../avetmiss/src/index.ts'
import type { ValidationResult } from '../../client/src/index.ts'
import { seedDatasets } from '../../avetmiss/test/support/reference-data.ts'

// The CLI's sources import @vetrs/avetmiss and @vetrs/client by name; resolve them to their sources,
// as bin/vetrs.js does (the packages have no build in the repository).
registerHooks({
  resolve: (specifier, context, nextResolve) =>
    nextResolve(
      specifier,
      specifier.startsWith('@vetrs/') ? { ...context, conditions: [...context.conditions, 'vetrs-source'] } : context,
    ),
})
const { problemFinding, refusalFindings, validationFinding, whereOf } = await import('../src/nat/findings.ts')
const { CSV_COLUMNS, csvRowsOf, writeCsvReport } = await import('../src/nat/report.ts')

const RTO = '90001'

async function mappedSet() {
  const generated = generateNatFileSet({ activities: 20, seed: 'findings', rtoCode: RTO, referenceData: seedDatasets })
  const read = await readNatEntries(generated.entries)
  return natToResources(read, { rtoCode: RTO, codes: codeTranslatorFrom(seedDatasets) })
}

function result(overrides: Partial<ValidationResult>): ValidationResult {
  return {
    validationGroupingId: 'g1',
    relatedValidationResultCount: 1,
    errorNumber: 'BRTS01200',
    ruleId: 'BRDG00001',
    technicalRuleId: 'BRTS01200',
    validationMessageLevel: 'Error',
    correctiveAction: 'Correct the USI.',
    message: 'uniqueStudentIdentifier X does not end in a valid check character.',
    resourceType: 'Student',
    resourceUID: '00000000-0000-4000-8000-000000000000',
    accessPath: ['$.uniqueStudentIdentifier'],
    changeTrackingIdentifier: null,
    dataSource: 'Transaction_batch',
    ...overrides,
  }
}

describe('vetrs nat import: findings at their NAT places', () => {
  it('a reader problem keeps its file, line and field, with the published label; a missing file is the whole file', () => {
    const dated = problemFinding('read', {
      file: 'nat00120.TXT',
      line: 49,
      field: 'activityStartDate',
      value: '30022026',
      message: 'not a date',
    })
    assert.deepEqual(dated.nat, [
      {
        file: 'nat00120.TXT',
        fileId: 'NAT00120',
        line: 49,
        field: 'activityStartDate',
        fieldLabel: 'Activity start date',
        text: 'NAT00120 line 49 field Activity start date',
      },
    ])
    assert.equal(
      whereOf(problemFinding('read', { file: 'NAT00010', line: 0, message: 'missing' })),
      'NAT00010 (the whole file)',
    )
  })

  it('a validation result on a mapped record names the NAT line and field of each access path; one on a held record says so', async () => {
    const { records } = await mappedSet()
    const origins = originIndexOf(records)
    const student = records.find(
      (r) => r.resourceType === 'Student' && (r.record as { uniqueStudentIdentifier?: string }).uniqueStudentIdentifier,
    )!
    const terms = natTermsOf(records)
    const bodies = new Map<string, unknown>(records.map((r) => [r.uid.toLowerCase(), r.record]))
    const finding = validationFinding(origins, result({ resourceUID: student.uid.toUpperCase() }), terms, bodies)
    assert.match(finding.value!, /^[0-9A-Z]{10}$/)
    assert.equal(finding.value, (student.record as { uniqueStudentIdentifier?: string }).uniqueStudentIdentifier)
    const line = student.origin.lines[0]!.line
    assert.equal(whereOf(finding), `NAT00080 line ${line} field Unique student identifier`)
    assert.equal(finding.rule, 'BRTS01200')
    // The API's field name in the message is told as the NAT field's published name.
    assert.equal(finding.message, 'Unique student identifier X does not end in a valid check character.')
    const held = validationFinding(origins, result({ dataSource: 'Previously_submitted_data' }), terms)
    assert.deepEqual(held.nat, [])
    assert.equal(whereOf(held), 'Student 00000000-0000-4000-8000-000000000000 (held, not in these files)')
  })

  it("a validation result's UIDs and JSON paths are told as the files' identifiers and field names", async () => {
    const { records } = await mappedSet()
    const origins = originIndexOf(records)
    const terms = natTermsOf(records)
    const enrolment = records.find((r) => r.resourceType === 'SubjectEnrolment' && r.record.programEnrolmentUID)!
    const values = (enrolment.origin.lines[0] as unknown as { values: Record<string, string> }).values
    const program = records.find(
      (r) => r.resourceType === 'Program' && r.record.programIdentifier === values.programIdentifier,
    )!
    const finding = validationFinding(
      origins,
      result({
        errorNumber: 'BRTS02100',
        resourceType: 'SubjectEnrolment',
        resourceUID: enrolment.uid,
        accessPath: ['$.programEnrolmentUID'],
        message: `$.programEnrolmentUID ${program.uid} is not in this transaction batch nor in the data previously submitted for this RTO (or it is voided there).`,
        correctiveAction: 'Upload the referenced record in this batch, or correct the UID to one that exists.',
      }),
      terms,
    )
    assert.equal(
      finding.message,
      `Program identifier program ${values.programIdentifier} is not in this transaction batch nor in the data previously submitted for this RTO (or it is voided there).`,
    )
    assert.match(
      finding.record!,
      new RegExp(`^the activity of client ${values.clientIdentifier}, subject ${values.subjectIdentifier}`),
    )
    assert.doesNotMatch(`${finding.message} ${finding.correctiveAction}`, /[0-9a-f]{8}-[0-9a-f]{4}|\$\./)
  })

  it('a record the upload refused for a pattern is told in plain words with the value', async () => {
    const { records } = await mappedSet()
    const origins = originIndexOf(records)
    const student = records.find((r) => r.resourceType === 'Student')!
    const usi = 'BAD0USI00I'
    const [finding] = refusalFindings(
      origins,
      {
        index: 0,
        errors: [
          {
            accessPath: '$.record.uniqueStudentIdentifier',
            message: 'must match pattern "^([2-9A-HJ-NP-Z]{10}|INTOFF)$"',
          },
        ],
      } as never,
      { ...student, record: { ...student.record, uniqueStudentIdentifier: usi } },
      natTermsOf(records),
    )
    assert.equal(finding!.value, usi)
    assert.equal(
      finding!.message,
      `Unique student identifier "${usi}" is not a USI: a USI is 10 characters, the digits 2 to 9 and the capital letters other than I and O, or INTOFF`,
    )
    assert.match(finding!.correctiveAction!, /^In the SMS, correct Unique student identifier of client /)
  })

  it('the CSV report has one row per NAT place, quoted where it must be, and reads back as written', async () => {
    const findings = [
      problemFinding('map', {
        file: 'NAT00100.txt',
        line: 1,
        field: 'priorEducationalAchievementIdentifier',
        value: '680',
        message: 'Prior educational achievement identifier "680" has no translation, not carried',
      }),
      validationFinding(new Map(), result({}), new Map()),
    ]
    const dir = await mkdtemp(join(tmpdir(), 'vetrs-findings-'))
    try {
      const file = join(dir, 'report.csv')
      await writeCsvReport(file, findings)
      const rows = parse(await readFile(file, 'utf8'), { columns: true }) as Record<string, string>[]
      assert.deepEqual(rows, csvRowsOf(findings))
      assert.deepEqual(Object.keys(rows[0]!), [...CSV_COLUMNS])
      assert.equal(rows[0]!.message, 'Prior educational achievement identifier "680" has no translation, not carried')
      assert.equal(rows[0]!.fieldLabel, 'Prior educational achievement identifier')
      assert.equal(rows[1]!.file, '')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
