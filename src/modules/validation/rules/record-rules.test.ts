// Every record rule's golden cases (test/golden/cases.ts, the one source of cases), run directly
// against the rule's check. A record rule sees one record of the batch at a time and nothing else, so
// a case needs no service: the batch is held as the service would hold it (test/support/stored-batch.ts:
// each upload checked as the upload route checks a body, the records in validation's order, the
// shipped reference data), and the engine's own code shows each record to the rule (rulesView) and turns
// the rule's findings into results as the API answers them.
// test/business-rules.test.ts runs the set rules' cases, and a few record rules', through HTTP.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { utcToday } from '../../../domain/reporting-period.ts'
import { recordRuleResults, rulesView } from '../engine.ts'
import { rules } from '../index.ts'
import type { RecordContext, RecordRule } from '../rule.ts'
import { toValidationResult } from '../validation.service.ts'
import { assertFailingCase, goldenCases, type GoldenCase } from '../../../../test/golden/cases.ts'
// Not the support index: this test starts no service.
import { seededReference, storedBatch } from '../../../../test/support/stored-batch.ts'
import { world } from '../../../../test/support/world.ts'

const context: RecordContext = { today: utcToday(), reference: seededReference() }

/** Every result of the rule over the case's batch, as failed-validation-results would list them. */
async function resultsOf(rule: RecordRule, golden: GoldenCase) {
  const w = await world()
  const results = storedBatch(golden.batch(w))
    .filter((record) => (rule.resourceTypes as readonly string[]).includes(record.resource_type))
    .flatMap((record) =>
      recordRuleResults(rule, rulesView(record), context, { rto_id: 'rto', run_id: 'run', attempt: 1 }),
    )
    .map(toValidationResult)
  return { w, results }
}

const recordRules = rules.filter((rule): rule is RecordRule => rule.kind === 'record')

describe('record rules, directly on their golden cases', () => {
  it('every record rule has golden cases to run here', () => {
    assert.ok(recordRules.length > 0)
    for (const rule of recordRules) assert.ok(goldenCases[rule.technicalRuleId], `${rule.technicalRuleId} has no cases`)
  })

  for (const rule of recordRules) {
    const cases = goldenCases[rule.technicalRuleId]
    if (!cases) continue
    describe(`${rule.technicalRuleId} (${rule.ruleId}): ${rule.title}`, () => {
      for (const golden of cases.passing) {
        it(`${rule.technicalRuleId} passes: ${golden.name}`, async () => {
          assert.deepEqual((await resultsOf(rule, golden)).results, [])
        })
      }
      for (const golden of cases.failing) {
        it(`${rule.technicalRuleId} fails: ${golden.name}`, async () => {
          const { w, results } = await resultsOf(rule, golden)
          assertFailingCase(golden, results, results, w)
        })
      }
    })
  }
})
