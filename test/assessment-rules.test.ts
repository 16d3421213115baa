// Every data quality assessment rule's golden cases, through the real service: each case's data is
// submitted for an RTO of its own, the period is assessed, and the rule's outcomes are read.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newClientOf, newRto, PERIOD, startTestService, V1, world, type TestService } from './support/index.ts'
import { assessmentCases, type AssessmentCase } from './golden/assessment-cases.ts'
import { assessmentRules } from '../src/modules/assessment/index.ts'
import { rules } from '../src/modules/validation/index.ts'
import { catalogue } from '../src/modules/rule-catalogue/index.ts'

describe('data quality assessment rules', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('GET /business-rules serves every assessment rule with scope assessment after the batch rules', async () => {
    const { reporter } = await newRto(t)
    const response = await reporter.request('GET', `${V1}/business-rules`)
    assert.equal(response.status, 200)
    const served = response.json.rules.filter((rule: any) => rule.scope === 'assessment')
    assert.deepEqual(
      served.map((rule: any) => rule.technicalRuleId),
      assessmentRules.map((rule) => rule.technicalRuleId),
    )
    assert.equal(response.json.numberOfRules, rules.length + assessmentRules.length)
    assert.deepEqual(response.json.rules, catalogue())
  })

  it('there are at least a dozen assessment rules, with identifiers no batch rule uses', () => {
    assert.ok(assessmentRules.length >= 12)
    const ids = catalogue().flatMap((entry) => [entry.technicalRuleId, entry.ruleId])
    assert.equal(new Set(ids).size, ids.length)
  })

  it('a rule the specification does not support does not block a declaration: DQTS10050 (one USI, one student) is the only Error rule', () => {
    // Spec: Data quality assessment result, AssessmentMessageLevel Error (blocking) or Warning; Enrolment
    // lifecycle, "related enrolments stay active". docs/decisions.md, Data quality assessments, Rules.
    assert.deepEqual(
      assessmentRules.filter((rule) => rule.level === 'Error').map((rule) => rule.technicalRuleId),
      ['DQTS10050'],
    )
    assert.equal(assessmentRules.find((rule) => rule.technicalRuleId === 'DQTS10120')?.level, 'Warning')
  })

  it('every assessment rule has at least one passing and one failing golden case, and no case names a rule that does not exist', () => {
    for (const rule of assessmentRules) {
      const cases = assessmentCases[rule.technicalRuleId]
      assert.ok(
        cases && cases.passing.length > 0 && cases.failing.length > 0,
        `${rule.technicalRuleId} lacks golden cases`,
      )
    }
    assert.deepEqual(Object.keys(assessmentCases).sort(), assessmentRules.map((rule) => rule.technicalRuleId).sort())
  })

  const run = async (golden: AssessmentCase, technicalRuleId: string) => {
    const [w, extra] = [await world(), await world()]
    const first = await newRto(t)
    for (const uploads of golden.submitted(w, extra)) await first.reporter.submitted(uploads)
    if (golden.submittedByOtherClient) {
      const second = await newClientOf(t, first.rto)
      for (const uploads of golden.submittedByOtherClient(w, extra)) await second.reporter.submitted(uploads)
    }
    const { results } = await first.assessor.assess(golden.period?.() ?? PERIOD)
    return { w, extra, results: results.filter((result) => result.technicalRuleId === technicalRuleId) }
  }

  for (const rule of assessmentRules) {
    const cases = assessmentCases[rule.technicalRuleId]
    if (!cases) continue
    describe(`${rule.technicalRuleId} (${rule.ruleId}): ${rule.title}`, () => {
      for (const golden of cases.passing) {
        it(`passes: ${golden.name}`, async () => {
          const { results } = await run(golden, rule.technicalRuleId)
          assert.deepEqual(results, [])
        })
      }
      for (const golden of cases.failing) {
        it(`fails: ${golden.name}`, async () => {
          const { w, extra, results } = await run(golden, rule.technicalRuleId)
          // Exactly the records the case names; the identifiers, level and corrective action are the
          // rule's own, copied in by the engine, so they are not restated here.
          assert.deepEqual(
            results.map((result) => `${result.resourceType} ${result.resourceUID}`).sort(),
            golden
              .results(w, extra)
              .map((outcome) => outcome.join(' '))
              .sort(),
          )
          golden.expect?.(results, w, extra)
        })
      }
    })
  }
})
