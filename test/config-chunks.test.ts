// Issue 30: on the embedded database a validation chunk's read holds the service's thread, so the
// default chunk is shorter there (500 records) than on PostgreSQL (2,000); a chunk size set is kept.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../src/config/config.ts'

describe('validation chunk size (issue 30)', () => {
  it('defaults to 500 records on the embedded database and 2,000 on PostgreSQL; a setting wins on both', () => {
    const embedded = { DATA_DIR: 'memory://', DATABASE_URL: '' }
    const postgres = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }
    assert.equal(loadConfig(embedded).validation.chunkSize, 500)
    assert.equal(loadConfig(postgres).validation.chunkSize, 2000)
    assert.equal(loadConfig({ ...embedded, VALIDATION_CHUNK_SIZE: '1500' }).validation.chunkSize, 1500)
    assert.equal(loadConfig({ ...postgres, VALIDATION_CHUNK_SIZE: '300' }).validation.chunkSize, 300)
  })
})

describe('result rows per statement (issue 30)', () => {
  it("is the database's default unless set; 0 is one statement per rule on both databases", () => {
    const embedded = { DATA_DIR: 'memory://', DATABASE_URL: '' }
    const postgres = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }
    assert.equal(loadConfig(embedded).validation.resultSliceRows, undefined)
    assert.equal(loadConfig(postgres).assessment.resultSliceRows, undefined)
    assert.equal(loadConfig({ ...postgres, RESULT_SLICE_ROWS: '250' }).validation.resultSliceRows, 250)
    assert.equal(loadConfig({ ...embedded, RESULT_SLICE_ROWS: '250' }).assessment.resultSliceRows, 250)
    assert.equal(loadConfig({ ...embedded, RESULT_SLICE_ROWS: '0' }).validation.resultSliceRows, null)
    assert.equal(loadConfig({ ...embedded, RESULT_SLICE_ROWS: '0' }).assessment.resultSliceRows, null)
  })
})

describe('the assessment working copy (issue 30)', () => {
  it("is the database's default unless set (the engine takes it on the embedded database only)", () => {
    const embedded = { DATA_DIR: 'memory://', DATABASE_URL: '' }
    const postgres = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }
    assert.equal(loadConfig(embedded).assessment.workingCopy, undefined)
    assert.equal(loadConfig({ ...postgres, ASSESSMENT_WORKING_COPY: 'true' }).assessment.workingCopy, true)
    assert.equal(loadConfig({ ...embedded, ASSESSMENT_WORKING_COPY: 'false' }).assessment.workingCopy, false)
  })
})
