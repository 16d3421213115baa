// AVETMISS codes translate through the reference datasets' avetmissCode, both ways, with the service's
// shipped seed as the data: no code table of the package's own.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { codeTranslatorFrom } from '../src/index.ts'
import { seedCodes, seedDatasets } from './support/reference-data.ts'

describe('codeTranslatorFrom, over the shipped seed', () => {
  const cases: [dataset: string, avetmiss: string, word: string][] = [
    ['state', '02', 'VIC'],
    ['state', '99', 'Overseas'],
    ['state', '@@', 'No_value'],
    ['gender', 'X', 'Other'],
    ['gender', '@', 'No_value'],
    ['indigenous-status', '3', 'Aboriginal_and_Torres_Strait_Islander'],
    ['highest-school-level', '02', 'Did_not_go_to_school'],
    ['labour-force-status', '08', 'Not_employed_not_seeking_employment'],
    ['disability-type', '99', 'Unspecified'],
    ['prior-educational-achievement', '008', 'Bachelor_degree_or_higher'],
    ['prior-educational-achievement-recognition', 'E', 'Australian_equivalent'],
    ['funding-source-national', '31', 'International_onshore'],
    ['commencing-program', '8', 'Subject_enrolment_only'],
    ['study-reason', '13', 'To_get_skills_for_community_or_voluntary_work'],
    ['school-type', '92', 'Home_school'],
    ['program-recognition', '16', 'Locally_recognised_skill_set'],
    ['program-level-of-education', '992', 'Bridging_and_enabling_course_not_identifiable_by_level'],
    ['predominant-delivery-mode', 'N', 'Not_applicable'],
    ['survey-availability', 'M', 'Minor_under_15'],
    ['outcome-national', '61', 'Superseded_subject'],
    // Classifications hold the AVETMISS value as their code: it translates to itself.
    ['country', '1101', '1101'],
    ['language', '9701', '9701'],
  ]
  for (const [dataset, avetmiss, word] of cases) {
    it(`${dataset}: ${avetmiss} is ${word}, and back`, () => {
      assert.equal(seedCodes.toApi(dataset, avetmiss), word)
      assert.equal(seedCodes.toAvetmiss(dataset, word), avetmiss)
    })
  }

  it('translates every record of every seeded dataset there and back', () => {
    let checked = 0
    for (const [dataset, records] of Object.entries(seedDatasets)) {
      for (const record of records) {
        const avetmiss = seedCodes.toAvetmiss(dataset, record.code)
        assert.equal(avetmiss, record.avetmissCode ?? record.code, `${dataset} ${record.code}`)
        assert.equal(seedCodes.toApi(dataset, avetmiss!), record.code, `${dataset} ${avetmiss}`)
        checked += 1
      }
    }
    assert.ok(checked > 800, `only ${checked} records checked: the seed was not read`)
  })

  it('has no translation for a code the dataset lacks, or for a dataset it was not given', () => {
    assert.equal(seedCodes.toApi('gender', 'Q'), undefined)
    assert.equal(seedCodes.toApi('outcome-national', '99'), undefined)
    assert.equal(seedCodes.toApi('country', '9998'), undefined)
    assert.equal(seedCodes.toAvetmiss('gender', 'Non_binary'), undefined)
    assert.equal(seedCodes.toApi('field-of-education', '0803'), undefined)
  })

  it('is exact: an AVETMISS code is not trimmed, padded or folded to upper case', () => {
    assert.equal(seedCodes.toApi('state', '2'), undefined)
    assert.equal(seedCodes.toApi('gender', 'm'), undefined)
  })
})

describe('codeTranslatorFrom, over records as the endpoints return them', () => {
  it('prefers an Active record to an Inactive one with the same code, whatever their order', () => {
    for (const records of [
      [
        { code: 'Other', avetmissCode: 'X', status: 'Inactive' },
        { code: 'Non_binary', avetmissCode: 'X', status: 'Active' },
      ],
      [
        { code: 'Non_binary', avetmissCode: 'X', status: 'Active' },
        { code: 'Other', avetmissCode: 'X', status: 'Inactive' },
      ],
    ]) {
      const codes = codeTranslatorFrom({ gender: records })
      assert.equal(codes.toApi('gender', 'X'), 'Non_binary')
      // The retired word still has its code: old records can be written back.
      assert.equal(codes.toAvetmiss('gender', 'Other'), 'X')
    }
  })

  it('takes the later of two records of the same status (versions come oldest first)', () => {
    const codes = codeTranslatorFrom({
      gender: [
        { code: 'Other', avetmissCode: 'X' },
        { code: 'Another', avetmissCode: 'X' },
      ],
    })
    assert.equal(codes.toApi('gender', 'X'), 'Another')
  })

  it('translates an Inactive record when it is the only one: validation, not the mapping, says a code is out of date', () => {
    const codes = codeTranslatorFrom({ gender: [{ code: 'Other', avetmissCode: 'X', status: 'Inactive' }] })
    assert.equal(codes.toApi('gender', 'X'), 'Other')
  })

  it('treats a null avetmissCode as the code itself, as the endpoints send it for classifications', () => {
    const codes = codeTranslatorFrom({ country: [{ code: '1101', avetmissCode: null }] })
    assert.equal(codes.toApi('country', '1101'), '1101')
    assert.equal(codes.toAvetmiss('country', '1101'), '1101')
  })
})
