// The business-rule catalogue (served and generated into docs/business-rules.md) and every rule's
// golden cases, run through the real service: held records submitted first, then the batch validated.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { startTestService, type TestService } from './support/test-service.ts'
import { Reporter, V1 } from './support/reporting.ts'
import { world } from './support/world.ts'
import { goldenCases, type GoldenCase } from './golden/cases.ts'
import { rules } from '../src/modules/validation/index.ts'
import { catalogue, catalogueMarkdown } from '../src/modules/rule-catalogue/index.ts'

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
    if (!cases) continue
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
          assert.ok(
            own.length > 0,
            `expected ${rule.technicalRuleId}; got ${JSON.stringify(results.map((r) => r.technicalRuleId))}`,
          )
          for (const result of own) {
            assert.equal(result.validationMessageLevel, rule.level)
            assert.equal(result.ruleId, rule.ruleId)
            assert.equal(result.errorNumber, rule.technicalRuleId)
            assert.equal(result.correctiveAction, rule.correctiveAction)
            assert.ok(result.accessPath.length > 0 && result.accessPath.every((path: string) => path.startsWith('$.')))
            assert.ok(
              rule.resourceTypes.includes(result.resourceType),
              `${result.resourceType} is not among the rule's resource types`,
            )
            assert.equal(
              own.filter((r) => r.validationGroupingId === result.validationGroupingId).length,
              result.relatedValidationResultCount,
            )
          }
          golden.expect?.(own, w)
        })
      }
    })
  }
})
