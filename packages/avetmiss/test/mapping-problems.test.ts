// What the mapping cannot carry is a problem at its NAT file, line and field, and what is left of the
// set is still mapped: an untranslatable code, a duplicate, a line with nothing to belong to, values
// the API holds once where NAT repeats them.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { MappedRecord, NatFileSet, NatProblem, ResourceType } from '../src/index.ts'
import { fixtureFileSet } from './support/nat-fixture.ts'
import { bodyOf, keys, mapFileSet } from './support/mapping.ts'

type Lines = Record<string, string | undefined>[]

/** The fixture with one file's lines changed. */
function changed(fileId: keyof NatFileSet, change: (lines: Lines) => Lines): NatFileSet {
  const fileSet = fixtureFileSet()
  return { ...fileSet, [fileId]: change(structuredClone((fileSet[fileId] ?? []) as Lines)) }
}

/** The fixture with fields of one line replaced (undefined: made blank). */
function withValues(fileId: keyof NatFileSet, line: number, values: Record<string, string | undefined>): NatFileSet {
  return changed(fileId, (lines) =>
    lines.map((record, index) => (index + 1 === line ? { ...record, ...values } : record)),
  )
}

function only(problems: NatProblem[]): NatProblem {
  assert.equal(problems.length, 1, `one problem expected, got ${JSON.stringify(problems, null, 2)}`)
  return problems[0]!
}

const has = (records: MappedRecord[], type: ResourceType, uid: string) =>
  records.some((record) => record.resourceType === type && record.uid === uid)

const FIRST_ACTIVITY = {
  deliveryLocationIdentifier: 'CBD01',
  clientIdentifier: 'S001',
  subjectIdentifier: 'BSBWHS411',
  programIdentifier: 'BSB40120',
  activityStartDate: '2026-02-02',
}

describe('codes without a translation', () => {
  const table: [file: keyof NatFileSet, line: number, field: string, value: string, dataset: string][] = [
    ['NAT00080', 1, 'gender', 'Q', 'gender'],
    ['NAT00080', 1, 'indigenousStatusIdentifier', '7', 'indigenous-status'],
    ['NAT00080', 1, 'languageIdentifier', '9998', 'language'],
    ['NAT00080', 1, 'countryIdentifier', '9998', 'country'],
    ['NAT00080', 1, 'surveyContactStatus', 'Z', 'survey-availability'],
    ['NAT00085', 1, 'stateIdentifier', '42', 'state'],
    ['NAT00090', 2, 'disabilityTypeIdentifier', '20', 'disability-type'],
    ['NAT00030A', 1, 'programRecognitionIdentifier', '19', 'program-recognition'],
    ['NAT00120', 1, 'studyReasonIdentifier', '09', 'study-reason'],
    ['NAT00120', 1, 'outcomeIdentifierNational', '99', 'outcome-national'],
  ]
  for (const [file, line, field, value, dataset] of table) {
    it(`${file} line ${line} ${field} "${value}" is a problem there, naming ${dataset}; the rest of the record is carried`, () => {
      const { records, problems } = mapFileSet(withValues(file, line, { [field]: value }))
      const problem = only(problems)
      assert.deepEqual(
        { file: problem.file, line: problem.line, field: problem.field, value: problem.value },
        { file: `${file}.txt`, line, field, value },
      )
      assert.match(problem.message, new RegExp(`reference dataset ${dataset}`))
      assert.equal(records.length, mapFileSet().records.length)
    })
  }

  it('a required code without translation leaves its record out, reported once', () => {
    const { records, problems } = mapFileSet(withValues('NAT00120', 1, { fundingSourceNational: '99' }))
    const problem = only(problems)
    assert.deepEqual([problem.file, problem.line, problem.field], ['NAT00120.txt', 1, 'fundingSourceNational'])
    assert.match(problem.message, /the subject enrolment is not carried/)
    assert.equal(has(records, 'SubjectEnrolment', keys.subjectEnrolment(FIRST_ACTIVITY)), false)
    // Its program enrolment stands on the other activity.
    assert.equal(has(records, 'ProgramEnrolment', keys.programEnrolment('S001', 'BSB40120')), true)
  })

  it('a delivery location whose state does not translate is left out', () => {
    const { records, problems } = mapFileSet(withValues('NAT00020', 2, { stateIdentifier: '12' }))
    assert.deepEqual([only(problems).line, only(problems).field], [2, 'stateIdentifier'])
    assert.equal(has(records, 'DeliveryLocation', keys.deliveryLocation('GEEL02')), false)
  })
})

describe('values the API cannot take as they are', () => {
  const table: [
    case_: string,
    fileSet: NatFileSet,
    file: string,
    line: number,
    field: string | undefined,
    message: RegExp,
  ][] = [
    [
      'a predominant delivery mode left blank where the letters name two modes',
      withValues('NAT00120', 1, { deliveryModeIdentifier: 'YYN', predominantDeliveryMode: undefined }),
      'NAT00120.txt',
      1,
      'predominantDeliveryMode',
      /names more than one mode/,
    ],
    [
      'a delivery mode that is not three Y/N letters',
      withValues('NAT00120', 1, { deliveryModeIdentifier: 'Y N' }),
      'NAT00120.txt',
      1,
      'deliveryModeIdentifier',
      /three letters Y or N/,
    ],
    [
      'a VET in schools flag that is not Y or N',
      withValues('NAT00120', 1, { vetInSchoolsFlag: '@' }),
      'NAT00120.txt',
      1,
      'vetInSchoolsFlag',
      /must be Y or N/,
    ],
    [
      'an activity start date not stated',
      withValues('NAT00120', 1, { activityStartDate: '@@@@@@@@' }),
      'NAT00120.txt',
      1,
      'activityStartDate',
      /must be stated/,
    ],
    [
      'a subject VET flag not stated',
      withValues('NAT00060', 1, { vetFlag: '@' }),
      'NAT00060.txt',
      1,
      'vetFlag',
      /the subject is not carried/,
    ],
  ]
  for (const [case_, fileSet, file, line, field, message] of table) {
    it(`${case_}: reported at ${file} line ${line} ${field}, the record left out`, () => {
      const before = mapFileSet().records.length
      const { records, problems } = mapFileSet(fileSet)
      const problem = only(problems)
      assert.deepEqual([problem.file, problem.line, problem.field], [file, line, field])
      assert.match(problem.message, message)
      assert.ok(records.length < before)
    })
  }

  it('a flag that is neither Y, N nor @ is reported, and the student carried without it', () => {
    const { records, problems } = mapFileSet(withValues('NAT00080', 3, { atSchoolFlag: 'X' }))
    assert.deepEqual([only(problems).line, only(problems).field], [3, 'atSchoolFlag'])
    const student = bodyOf(records, 'Student', keys.student('S003'))
    assert.equal('isAtSchool' in student, false)
  })

  it('an address with a suburb but no postcode is reported and left out; the student stays', () => {
    const { records, problems } = mapFileSet(withValues('NAT00080', 1, { postcode: '@@@@' }))
    const problem = only(problems)
    assert.deepEqual([problem.line, problem.field], [1, 'postcode'])
    const student = bodyOf(records, 'Student', keys.student('S001'))
    assert.equal('permanentAddress' in student, false)
  })

  it('a prior achievement without its recognition identifier is reported and left out', () => {
    const { records, problems } = mapFileSet(
      withValues('NAT00100', 1, { priorEducationalAchievementRecognitionIdentifier: undefined }),
    )
    assert.deepEqual(
      [only(problems).file, only(problems).field],
      ['NAT00100.txt', 'priorEducationalAchievementRecognitionIdentifier'],
    )
    const student = bodyOf(records, 'Student', keys.student('S001'))
    assert.equal('priorEducationalAchievements' in student, false)
  })

  it('a program whose activities all say subject enrolment only (8) has no program enrolment', () => {
    const { records, problems } = mapFileSet(withValues('NAT00120', 4, { commencingProgramIdentifier: '8' }))
    assert.deepEqual([only(problems).line, only(problems).field], [4, 'commencingProgramIdentifier'])
    assert.equal(has(records, 'ProgramEnrolment', keys.programEnrolment('S003', 'CHC33021')), false)
  })
})

describe('lines with nothing to belong to, and lines said twice', () => {
  it('a duplicate client, location, subject or activity is reported at the second line and not carried', () => {
    for (const fileId of ['NAT00080', 'NAT00020', 'NAT00060', 'NAT00120'] as const) {
      const fileSet = changed(fileId, (lines) => [...lines, { ...lines[0]! }])
      const { records, problems } = mapFileSet(fileSet)
      const problem = only(problems)
      assert.deepEqual([problem.file, problem.line], [`${fileId}.txt`, (fixtureFileSet()[fileId] ?? []).length + 1])
      assert.match(problem.message, /already on line 1/)
      assert.equal(records.length, mapFileSet().records.length)
    }
  })

  it('contact details, a disability or an achievement of a client not in NAT00080 are reported', () => {
    for (const fileId of ['NAT00085', 'NAT00090', 'NAT00100'] as const) {
      const { problems } = mapFileSet(withValues(fileId, 1, { clientIdentifier: 'S404' }))
      const reported = problems.filter((problem) => problem.file === `${fileId}.txt`)
      assert.equal(reported.length, 1, fileId)
      assert.deepEqual([reported[0]!.line, reported[0]!.field, reported[0]!.value], [1, 'clientIdentifier', 'S404'])
    }
  })

  it('an activity naming a location, client, subject or program not in the set is reported there, and still carried', () => {
    const table = [
      ['deliveryLocationIdentifier', 'NOWHERE', 'NAT00020'],
      ['clientIdentifier', 'S404', 'NAT00080'],
      ['subjectIdentifier', 'XYZ404', 'NAT00060'],
      ['programIdentifier', 'ABC40499', 'NAT00030 or NAT00030A'],
    ] as const
    for (const [field, value, fileId] of table) {
      const { records, problems } = mapFileSet(withValues('NAT00120', 1, { [field]: value }))
      const problem = only(problems)
      assert.deepEqual(
        { file: problem.file, line: problem.line, field: problem.field, value: problem.value },
        { file: 'NAT00120.txt', line: 1, field, value },
      )
      assert.match(problem.message, new RegExp(`${value} is not in ${fileId}`))
      assert.ok(has(records, 'SubjectEnrolment', keys.subjectEnrolment({ ...FIRST_ACTIVITY, [field]: value })))
    }
  })

  it('a client without NAT00085 gets the names of Name for encryption, reported', () => {
    const { records, problems } = mapFileSet(changed('NAT00085', (lines) => lines.slice(1)))
    const problem = only(problems)
    assert.deepEqual([problem.file, problem.line], ['NAT00080.txt', 1])
    const student = bodyOf(records, 'Student', keys.student('S001'))
    assert.deepEqual([student.familyName, student.firstGivenName], ['NGUYEN', 'MAI'])
  })

  it('a family name not stated is reported, and the names taken from Name for encryption', () => {
    const { records, problems } = mapFileSet(withValues('NAT00085', 3, { clientFamilyName: '@' }))
    assert.deepEqual(
      [only(problems).file, only(problems).line, only(problems).field],
      ['NAT00085.txt', 3, 'clientFamilyName'],
    )
    const student = bodyOf(records, 'Student', keys.student('S003'))
    assert.deepEqual([student.familyName, student.firstGivenName], ['SMITH', 'JOHN'])
  })

  it('a disability listed twice for a client is reported once and carried once', () => {
    const { records, problems } = mapFileSet(
      changed('NAT00090', (lines) => [...lines, { clientIdentifier: 'S001', disabilityTypeIdentifier: '14' }]),
    )
    assert.deepEqual([only(problems).file, only(problems).line], ['NAT00090.txt', 3])
    const student = bodyOf(records, 'Student', keys.student('S001'))
    assert.deepEqual(student.disabilities, ['Learning', 'Vision'])
  })

  it('a completion without activity in the program, or a second completion, is reported and not carried', () => {
    const completion = fixtureFileSet().NAT00130![0]!
    const { records, problems } = mapFileSet(
      changed('NAT00130', (lines) => [
        ...lines,
        { ...completion, dateProgramCompleted: '2026-07-01' },
        { ...completion, clientIdentifier: 'S003', programIdentifier: 'BSB40120' },
      ]),
    )
    assert.deepEqual(
      problems.map((problem) => [problem.file, problem.line]),
      [
        ['NAT00130.txt', 2],
        ['NAT00130.txt', 3],
      ],
    )
    assert.match(problems[1]!.message, /no NAT00120 activity/)
    const enrolment = bodyOf(records, 'ProgramEnrolment', keys.programEnrolment('S001', 'BSB40120'))
    assert.equal(enrolment.programCompletion?.dateProgramCompleted, '2026-06-30')
  })

  it('a program on NAT00030A and NAT00030 is taken from NAT00030A; a different name on NAT00030 is reported', () => {
    const same = changed('NAT00030', (lines) => [
      ...lines,
      { programIdentifier: 'BSB40120', programName: 'Certificate IV in Business', nominalHours: '0260' },
    ])
    assert.deepEqual(mapFileSet(same).problems, [])
    const other = changed('NAT00030', (lines) => [
      ...lines,
      { programIdentifier: 'BSB40120', programName: 'Cert IV Business', nominalHours: '260' },
    ])
    const { records, problems } = mapFileSet(other)
    assert.deepEqual(
      [only(problems).file, only(problems).line, only(problems).field],
      ['NAT00030.txt', 2, 'programName'],
    )
    const program = bodyOf(records, 'Program', keys.program('BSB40120'))
    assert.equal(program.programName, 'Certificate IV in Business')
  })
})

describe('what NAT repeats on each activity and the API holds once', () => {
  it('a second training contract identifier in one program enrolment is reported; the first is carried', () => {
    const fileSet = changed('NAT00120', (lines) => [
      ...lines,
      {
        ...lines[3]!,
        subjectIdentifier: 'BSBWHS411',
        activityStartDate: '2026-08-03',
        trainingContractIdentifier: 'TC99999',
      },
    ])
    const { records, problems } = mapFileSet(fileSet)
    assert.deepEqual(
      [only(problems).line, only(problems).field, only(problems).value],
      [7, 'trainingContractIdentifier', 'TC99999'],
    )
    const enrolment = bodyOf(records, 'ProgramEnrolment', keys.programEnrolment('S003', 'CHC33021'))
    assert.equal(enrolment.trainingContractIdentifier, 'TC12345')
  })

  it('a training contract on a subject outside any program has nowhere to go: reported', () => {
    const { problems } = mapFileSet(withValues('NAT00120', 3, { trainingContractIdentifier: 'TC55555' }))
    assert.deepEqual([only(problems).line, only(problems).field], [3, 'trainingContractIdentifier'])
  })

  it('a line of another training organisation is reported, and imported for the RTO asked', () => {
    const { records, problems } = mapFileSet(withValues('NAT00120', 1, { trainingOrganisationIdentifier: '12345' }))
    assert.deepEqual(
      [only(problems).line, only(problems).field, only(problems).value],
      [1, 'trainingOrganisationIdentifier', '12345'],
    )
    assert.equal(has(records, 'SubjectEnrolment', keys.subjectEnrolment(FIRST_ACTIVITY)), true)
  })
})

describe('problems', () => {
  it('come in file and line order, whatever order the mapping found them in', () => {
    const fileSet = {
      ...withValues('NAT00120', 2, { studyReasonIdentifier: '09' }),
      NAT00080: withValues('NAT00080', 3, { gender: 'Q' }).NAT00080,
      NAT00020: withValues('NAT00020', 1, { countryIdentifier: '9998' }).NAT00020,
    }
    const { problems } = mapFileSet(fileSet)
    assert.deepEqual(
      problems.map((problem) => `${problem.file}:${problem.line}`),
      ['NAT00020.txt:1', 'NAT00080.txt:3', 'NAT00120.txt:2'],
    )
  })
})
