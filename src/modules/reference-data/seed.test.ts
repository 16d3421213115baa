// The reference-data seed files (src/modules/reference-data/seed/*.tsv) against the dataset registry and
// the API's code lists: every file well formed, and every dataset that mirrors a word list holds exactly
// that list's words (with their AVETMISS codes), so the schema enums and the datasets cannot drift apart.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { datasets, type DatasetName } from './datasets.ts'
import * as lists from '../resources/code-lists.ts'
import { jurisdictions } from '../../domain/jurisdictions.ts'

const seedDir = new URL('./seed/', import.meta.url)
const COLUMNS = ['code', 'description', 'avetmissCode', 'businessEffectiveFrom', 'businessEffectiveTo']

interface SeedFile {
  comments: string[]
  header: string[]
  rows: { line: number; cells: string[] }[]
}

/** Deliberately tiny: `#` lines are comments, the first other line is the header, the rest are rows. */
function parseSeed(text: string): SeedFile {
  const comments: string[] = []
  let header: string[] | undefined
  const rows: SeedFile['rows'] = []
  text.split('\n').forEach((raw, index) => {
    if (raw === '' && index === text.split('\n').length - 1) return // final newline
    if (raw.startsWith('#')) {
      comments.push(raw)
      return
    }
    const cells = raw.split('\t')
    if (header === undefined) header = cells
    else rows.push({ line: index + 1, cells })
  })
  return { comments, header: header ?? [], rows }
}

const seeds = new Map(
  datasets.map((dataset) => [dataset.name, parseSeed(readFileSync(new URL(dataset.seedFile, seedDir), 'utf8'))]),
)
const codesOf = (name: DatasetName) => seeds.get(name)!.rows.map((row) => row.cells[0])
const avetmissCodesOf = (name: DatasetName) =>
  Object.fromEntries(seeds.get(name)!.rows.map((row) => [row.cells[0], row.cells[2]]))

/** The word lists the datasets mirror, with their word -> AVETMISS code maps where AVETMISS has a code. */
const mirrored: Partial<Record<DatasetName, { words: readonly string[]; codes?: Record<string, string> }>> = {
  jurisdiction: { words: jurisdictions },
  state: { words: lists.studentAddressStates, codes: lists.studentAddressStateCodes },
  gender: { words: lists.genders, codes: lists.genderCodes },
  'indigenous-status': { words: lists.indigenousStatuses, codes: lists.indigenousStatusCodes },
  'highest-school-level': { words: lists.highestSchoolLevels, codes: lists.highestSchoolLevelCodes },
  'labour-force-status': { words: lists.labourForceStatuses, codes: lists.labourForceStatusCodes },
  'disability-type': { words: lists.disabilityTypes, codes: lists.disabilityTypeCodes },
  'prior-educational-achievement': {
    words: lists.priorEducationalAchievementTypes,
    codes: lists.priorEducationalAchievementTypeCodes,
  },
  'prior-educational-achievement-recognition': {
    words: lists.priorEducationalAchievementRecognitions,
    codes: lists.priorEducationalAchievementRecognitionCodes,
  },
  'funding-source-national': { words: lists.fundingSourcesNational, codes: lists.fundingSourceNationalCodes },
  'commencing-program': { words: lists.commencingPrograms, codes: lists.commencingProgramCodes },
  'study-reason': { words: lists.studyReasons, codes: lists.studyReasonCodes },
  'school-type': { words: lists.schoolTypes, codes: lists.schoolTypeCodes },
  'program-recognition': { words: lists.programRecognitions, codes: lists.programRecognitionCodes },
  'program-level-of-education': { words: lists.programLevelsOfEducation, codes: lists.programLevelOfEducationCodes },
  'subject-type': { words: lists.subjectTypes, codes: lists.subjectTypeCodes },
  'predominant-delivery-mode': { words: lists.predominantDeliveryModes, codes: lists.predominantDeliveryModeCodes },
  'survey-availability': { words: lists.surveyAvailabilities, codes: lists.surveyAvailabilityCodes },
  'student-status': { words: lists.studentStatuses },
  'student-status-reason': { words: lists.studentStatusReasons },
  'voided-reason': { words: lists.voidedReasons },
  'outcome-national': { words: lists.outcomesNational, codes: lists.outcomeNationalCodes },
  'participant-involvement-type': { words: lists.participantInvolvementTypes },
}

describe('reference-data seed files', () => {
  it('has a seed file for every dataset in the registry, and a registry entry for every seed file', () => {
    const files = readdirSync(seedDir)
      .filter((file) => !file.startsWith('.'))
      .sort()
    assert.deepEqual(files, datasets.map((dataset) => dataset.seedFile).sort())
    assert.equal(new Set(datasets.map((dataset) => dataset.name)).size, datasets.length, 'dataset names are unique')
    for (const dataset of datasets) {
      assert.match(dataset.name, /^[a-z]+(-[a-z]+)*$/, `${dataset.name} is kebab-case`)
      assert.equal(dataset.seedFile, `${dataset.name}.tsv`, `${dataset.name}: file named after the dataset`)
      assert.equal(
        dataset.kind,
        ['country', 'language'].includes(dataset.name) ? 'classification' : 'reference',
        `${dataset.name}: kind`,
      )
    }
  })

  for (const dataset of datasets) {
    describe(dataset.name, () => {
      const seed = seeds.get(dataset.name)!

      it('names the dataset and its source in the comment lines', () => {
        assert.ok(seed.comments[0]?.startsWith(`# dataset: ${dataset.name}`), `first comment names ${dataset.name}`)
        assert.ok(seed.comments.includes(`# source: ${dataset.source}`), 'a `# source:` line matching the registry')
      })

      it('has exactly the five columns and well-formed rows', () => {
        assert.deepEqual(seed.header, COLUMNS)
        assert.ok(seed.rows.length > 0, 'at least one row')
        const seen = new Set<string>()
        for (const { line, cells } of seed.rows) {
          assert.equal(cells.length, COLUMNS.length, `line ${line}: ${COLUMNS.length} cells`)
          const [code, description, , from, to] = cells as [string, string, string, string, string]
          assert.notEqual(code, '', `line ${line}: empty code`)
          assert.notEqual(description, '', `line ${line}: empty description`)
          assert.ok(!seen.has(code), `line ${line}: duplicate code ${code}`)
          seen.add(code)
          for (const cell of cells)
            assert.equal(cell, cell.trim(), `line ${line}: leading or trailing space in ${JSON.stringify(cell)}`)
          for (const date of [from, to]) {
            assert.ok(
              date === '' || (/^\d{4}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`))),
              `line ${line}: date ${date}`,
            )
          }
          if (from !== '' && to !== '') assert.ok(from <= to, `line ${line}: effective from after effective to`)
        }
      })
    })
  }

  it('mirrors every word list exactly, with the AVETMISS codes of code-lists.ts', () => {
    for (const dataset of datasets) {
      const list = mirrored[dataset.name]
      if (dataset.kind === 'classification') {
        assert.equal(list, undefined)
        continue
      }
      assert.ok(list, `${dataset.name}: a reference dataset mirrors a code list`)
      assert.deepEqual(
        new Set(codesOf(dataset.name)),
        new Set(list.words),
        `${dataset.name}: codes are the code list's words`,
      )
      const expected = Object.fromEntries(list.words.map((word) => [word, list.codes?.[word] ?? '']))
      assert.deepEqual(avetmissCodesOf(dataset.name), expected, `${dataset.name}: avetmissCode of each word`)
    }
    // The subsets the schemas use are inside their datasets.
    for (const state of lists.states) assert.ok(codesOf('state').includes(state))
    for (const word of lists.programCommencingPrograms) assert.ok(codesOf('commencing-program').includes(word))
  })

  it('carries No_value with the description "Not stated" exactly where the code list has it', () => {
    for (const dataset of datasets) {
      const row = seeds.get(dataset.name)!.rows.find((r) => r.cells[0] === 'No_value')
      assert.equal(row !== undefined, mirrored[dataset.name]?.words.includes('No_value') ?? false, dataset.name)
      if (row) assert.equal(row.cells[1], 'Not stated', dataset.name)
    }
  })

  it('ships the full SACC and ASCL classifications: 4-digit codes, plus @@@@ not specified', () => {
    const shared = (file: string) =>
      readFileSync(new URL(`../../../../shared/reference-data/${file}`, import.meta.url), 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split('\t'))
    for (const [name, file] of [
      ['country', 'country-sacc.tsv'],
      ['language', 'language-ascl.tsv'],
    ] as const) {
      const rows = seeds.get(name)!.rows.map((row) => row.cells.slice(0, 2))
      for (const [code] of rows) assert.match(code!, /^(\d{4}|@@@@)$/, `${name}: code ${code}`)
      assert.ok(
        rows.some(([code]) => code === '@@@@'),
        `${name}: @@@@ row`,
      )
      let source: string[][] | undefined
      try {
        source = shared(file)
      } catch {
        /* shared/ not beside the repository: the shape checks above still hold */
      }
      if (source) assert.deepEqual(rows, source, `${name}: every row of shared/reference-data/${file}`)
    }
    assert.ok(codesOf('country').includes('1101'))
    assert.ok(codesOf('language').includes('1201'))
  })
})
