// The console says refusals and next steps as a person would (issue 32, item 7): no API paths, field
// names or message levels, whatever the API tells a program. Without a browser (a refusal's words need
// none), each person signed in through the same OpenID Connect flow (test/console/http-session.ts).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { minimalUnitRecord, PERIOD, Reporter, startTestService, type TestService } from './support/index.ts'
import { csrfOf, signInOverHttp } from './console/http-session.ts'

/** What a person should never have to read: the API's paths and field names. */
const API_WORDS =
  /\.\.\.\/validate|\/vet-provider\/|failed-validation-results|validationMessageLevel|AssessmentMessageLevel|POST |GET /

describe('web console: words people use', () => {
  let t: TestService
  let rto1: Reporter

  before(async () => {
    t = await startTestService({ portKnownBeforeStart: true })
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })
  after(() => t?.close())

  it('submitting a batch with blocking failures is refused in words that say what to do on the console', async () => {
    const uploads = await minimalUnitRecord()
    const student = uploads.find((u) => u.segment === 'student')!
    const { emailAddressPrimary: _left, ...withoutEmail } = student.body
    const batch = await rto1.batchWith([{ segment: 'student', body: withoutEmail }]) // BRTS01180, an Error
    await rto1.validate(batch)
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const page = await session.page(`/console/rto/90001/batches/NSW/${batch}`)
    const refused = await session.submit(`/console/rto/90001/batches/NSW/${batch}/submit`, { _csrf: csrfOf(page.text) })
    const alert = /<div class="flash error" role="alert">\s*<p>([^<]*)<\/p>/.exec(refused.text)?.[1] ?? ''
    assert.match(alert, /The batch cannot be submitted: its latest check found blocking failures \(errors\)/)
    assert.doesNotMatch(alert, API_WORDS)
  })

  it('declaring before any assessment, and the assessment page’s next step, say it without the API', async () => {
    const session = await signInOverHttp(t.baseUrl, 'declarer-90001')
    const page = await session.page(`/console/rto/90001/declare?period=${PERIOD}&jurisdiction=NSW`)
    const refused = await session.request('POST', '/console/rto/90001/declare', {
      _csrf: csrfOf(page.text),
      period: String(PERIOD),
      jurisdiction: 'NSW',
      declarationType: 'Declaration',
      accept: 'yes',
    })
    assert.equal(refused.status, 409)
    const alert = /<div class="flash error" role="alert"[^>]*>\s*<p>([^<]*)<\/p>/.exec(refused.text)?.[1] ?? ''
    assert.match(alert, new RegExp(`No data quality assessment of NSW ${PERIOD} has been run yet`))
    assert.doesNotMatch(alert, API_WORDS)

    const assessment = await session.page(`/console/rto/90001/assessment?period=${PERIOD}&jurisdiction=NSW`)
    const messages = /<ul class="messages">([\s\S]*?)<\/ul>/.exec(assessment.text)?.[1] ?? ''
    assert.match(messages, /Run an assessment and wait until it says Validated\./)
    assert.doesNotMatch(messages, API_WORDS)
  })
})
