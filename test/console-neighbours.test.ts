// Records people recognise (issue 32, item 1, the rest): a failed result on a batch's page shows the
// failing field's value and the fields beside it in the record, so a person sees where it sits without
// opening the record. Over HTTP (nothing here needs a browser), signed in through the same OpenID
// Connect flow as a person (test/console/http-session.ts).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { minimalUnitRecord, Reporter, startTestService, type TestService } from './support/index.ts'
import { signInOverHttp } from './console/http-session.ts'

describe('web console: a failed result shows its field among its neighbours', () => {
  let t: TestService
  let rto1: Reporter

  before(async () => {
    t = await startTestService({ portKnownBeforeStart: true })
    rto1 = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })
  after(() => t?.close())

  it('a student without an e-mail address: the result names the field, not given, and the student’s fields beside it', async () => {
    const student = (await minimalUnitRecord()).find((u) => u.segment === 'student')!
    const { emailAddressPrimary: _left, ...withoutEmail } = student.body as Record<string, unknown>
    const batch = await rto1.batchWith([{ segment: 'student', body: withoutEmail }]) // BRTS01180
    const { results } = await rto1.validate(batch)
    const failed = results.find((r) => r.technicalRuleId === 'BRTS01180')
    assert.ok(failed, 'BRTS01180 failed')
    const session = await signInOverHttp(t.baseUrl, 'staff-90001')
    const page = await session.page(`/console/rto/90001/batches/NSW/${batch}?rule=BRTS01180`)
    const row =
      /<tr>\s*<th scope="row"[^>]*><a href="\/console\/rules#BRTS01180">[\s\S]*?<\/tr>/.exec(page.text)?.[0] ?? ''
    assert.match(row, /<code>emailAddressPrimary<\/code>: <em>not given<\/em>/)
    const beside = /<span class="hint neighbours">Beside it: ([\s\S]*?)<\/span>/.exec(row)?.[1] ?? ''
    // The student's own top-level fields, with their values as submitted.
    const named = [...beside.matchAll(/<code>([^<]+)<\/code>: ([^;<]*)/g)].map((m) => [m[1], m[2]!.trim()])
    assert.ok(named.length >= 2 && named.length <= 8, beside)
    for (const [path, value] of named) {
      assert.doesNotMatch(path!, /[.[]/, 'a top-level field beside a top-level one')
      assert.equal(value, String((withoutEmail as Record<string, unknown>)[path!]).replace(/&/g, '&amp;'))
    }
  })
})
