// Standard workflow 1 (Submit) through a client generated from the served OpenAPI description with
// mainstream tools from the npm registry: openapi-typescript 7 writes the types, openapi-fetch sends
// the requests. The test generates the types, type-checks the workflow code against them
// (test/generated-client/workflow.ts: a description a generator misreads fails here, at compile
// time), then runs it against a real service: token, batch, the minimal unit record, validate, poll,
// failed-validation-results, submit, held state and search-by-period.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { typesFor } from '../tools/openapi-codegen/index.ts'
import { loadExample, MINIMAL_UNIT_RECORD, startTestService, type TestService } from './support/index.ts'

const run = promisify(execFile)
const GENERATED = new URL('./generated-client/generated/', import.meta.url)

describe('a client generated from /openapi.json (openapi-typescript 7 + openapi-fetch)', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('Standard workflow 1: the generated client creates a batch, uploads the minimal unit record, validates, reads results, submits, and finds the records held', async () => {
    const document = await (await fetch(`${t.baseUrl}/openapi.json`)).json()
    await mkdir(GENERATED, { recursive: true })
    // Written aside and renamed into place: the other half of npm test may be compiling it right now
    // (the document, and so the file, is the same on both databases).
    const aside = new URL(`openapi.ts.${process.pid}`, GENERATED)
    await writeFile(aside, await typesFor(document))
    await rename(aside, new URL('openapi.ts', GENERATED))
    // The workflow code must compile against what the generator made of the description.
    const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname
    await run(process.execPath, [
      tsc,
      '-p',
      new URL('./generated-client/tsconfig.json', import.meta.url).pathname,
    ]).catch((error: { stdout?: string }) => {
      assert.fail(`the workflow does not compile against the generated client:\n${error.stdout ?? error}`)
    })

    // Imported by URL: the repository's own type-check must not follow it into the generated types,
    // which exist only once this test has made them (the tsc run above checks the workflow).
    const workflow = new URL('./generated-client/workflow.ts', import.meta.url).href
    const { submitWorkflow } = (await import(workflow)) as {
      submitWorkflow: (baseUrl: string, id: string, secret: string, record: unknown) => Promise<any>
    }
    const record = Object.fromEntries(
      await Promise.all(
        MINIMAL_UNIT_RECORD.map(async (file) => [
          file === 'subjectenrolment-in-program' ? 'subjectenrolmentInProgram' : file,
          await loadExample(file),
        ]),
      ),
    )
    const outcome = await submitWorkflow(t.baseUrl, 'demo-rto-1', 'demo-secret-1', record)

    assert.equal(outcome.tokenType, 'Bearer')
    assert.deepEqual([outcome.created.status, outcome.created.jurisdiction], ['NotSubmitted', 'NSW'])
    assert.deepEqual(
      outcome.beforeValidation,
      { status: 404, problemType: '/problems/no-validation-run' },
      'the typed problem body tells "no run yet"',
    )
    assert.deepEqual(
      outcome.uploads.map((upload: { resourceType: string }) => upload.resourceType),
      [
        'Student',
        'DeliveryLocation',
        'Subject',
        'SubjectOffering',
        'SubjectEnrolment',
        'Program',
        'ProgramOffering',
        'ProgramEnrolment',
        'SubjectEnrolment',
      ],
    )
    assert.deepEqual(
      [outcome.validation.validationStatus, outcome.validation.hasBlockingValidationFailures],
      ['Validated', false],
    )
    assert.deepEqual(
      outcome.failedResults.results.filter(
        (result: { validationMessageLevel: string }) => result.validationMessageLevel === 'Error',
      ),
      [],
      'the minimal unit record passes blocking validation',
    )
    assert.equal(outcome.submitted.status, 'Submitted')
    assert.equal(outcome.submitted.numberOfRecordsSubmitted, 9)
    assert.equal(outcome.held.stateInSubmission, 'In submission')
    const enrolments = [record.subjectenrolment, record.subjectenrolmentInProgram]
      .map((e) => (e as { subjectEnrolmentUID: string }).subjectEnrolmentUID)
      .sort()
    assert.deepEqual(
      outcome.search.results.map((item: { resourceUID: string }) => item.resourceUID).sort(),
      enrolments,
      'search-by-period with reportingPeriods as an array (sent repeated) finds both enrolments',
    )
  })
})
