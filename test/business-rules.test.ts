// The business-rule catalogue (served and generated into docs/business-rules.md), and the golden cases
// of every set rule run through the real service: held records submitted first, then the batch
// validated. A record rule looks at one record of the batch and nothing else, so its cases run
// directly against its check (src/modules/validation/rules/record-rules.test.ts); those of the record
// rules named here run end to end as well, for the path from upload to failed-validation-results.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { Reporter, startTestService, V1, world, type TestService } from './support/index.ts'
import { assertFailingCase, goldenCases, type GoldenCase } from './golden/cases.ts'
import { rules } from '../src/modules/validation/index.ts'
import { catalogue, catalogueMarkdown } from '../src/modules/rule-catalogue/index.ts'

/**
 * Record rules whose cases also run end to end: BRTS01180, the specification's own example (the
 * resource UID and change tracking identifier of a result), and BRTS01240, which reads reference data
 * held in the database.
 */
const END_TO_END_RECORD_RULES = ['BRTS01180', 'BRTS01240']
for (const id of END_TO_END_RECORD_RULES)
  assert.equal(rules.find((rule) => rule.technicalRuleId === id)?.kind, 'record', `${id} is a record rule`)

describe('business-rule catalogue', () => {
  let t: TestService
  let reporter: Reporter
  before(async () => {
    t = await startTestService()
    reporter = new Reporter(t.baseUrl, await t.token())
  })
  after(() => t.close())

  it('GET /business-rules serves every rule with its identifiers, level and corrective action', async () => {
    const response = await reporter.request('GET', `${V1}/business-rules`)
    assert.equal(response.status, 200)
    assert.equal(response.json.numberOfRules, catalogue().length)
    assert.deepEqual(response.json.rules, catalogue())
    const spec = response.json.rules.find((rule: any) => rule.technicalRuleId === 'BRTS01180')
    assert.deepEqual([spec.ruleId, spec.errorNumber, spec.validationMessageLevel], ['BRDG00017', 'BRTS01180', 'Error'])
  })

  it('rule identifiers are unique (technicalRuleId and ruleId are never shared or reused)', () => {
    assert.equal(new Set(rules.map((rule) => rule.technicalRuleId)).size, rules.length)
    assert.equal(new Set(rules.map((rule) => rule.ruleId)).size, rules.length)
  })

  it('docs/business-rules.md is generated from the catalogue and up to date (npm run docs:rules)', async () => {
    const written = await readFile(new URL('../docs/business-rules.md', import.meta.url), 'utf8')
    assert.equal(written, catalogueMarkdown())
  })

  it('every rule has at least one passing and one failing golden case, and no case names a rule that does not exist', () => {
    for (const rule of rules) {
      const cases = goldenCases[rule.technicalRuleId]
      assert.ok(
        cases && cases.passing.length > 0 && cases.failing.length > 0,
        `${rule.technicalRuleId} lacks golden cases`,
      )
    }
    assert.deepEqual(Object.keys(goldenCases).sort(), rules.map((rule) => rule.technicalRuleId).sort())
  })

  const run = async (golden: GoldenCase) => {
    const w = await world()
    if (golden.held) await reporter.submitted(golden.held(w))
    const batch = await reporter.batchWith(golden.batch(w))
    const { results } = await reporter.validate(batch)
    return { w, results }
  }

  for (const rule of rules) {
    const cases = goldenCases[rule.technicalRuleId]
    if (!cases || (rule.kind === 'record' && !END_TO_END_RECORD_RULES.includes(rule.technicalRuleId))) continue
    describe(`${rule.technicalRuleId} (${rule.ruleId}): ${rule.title}`, () => {
      for (const golden of cases.passing) {
        it(`${rule.technicalRuleId} passes: ${golden.name}`, async () => {
          const { results } = await run(golden)
          assert.deepEqual(
            results.filter((result) => result.technicalRuleId === rule.technicalRuleId),
            [],
          )
        })
      }
      for (const golden of cases.failing) {
        it(`${rule.technicalRuleId} fails: ${golden.name}`, async () => {
          const { w, results } = await run(golden)
          const own = results.filter((result) => result.technicalRuleId === rule.technicalRuleId)
          assertFailingCase(golden, own, results, w)
        })
      }
    })
  }
})
