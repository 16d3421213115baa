// The assessment statuses of many RTOs read at once (assessmentStatusesOf, for the operators' view of
// the collection) are exactly what GET .../reporting-period/{jurisdiction}/{period}/validate answers
// each RTO: Validated, Required because data was submitted after the assessment began, Required
// because none was requested, and an RTO with nothing at all.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assessmentStatusesOf } from '../src/modules/assessment/index.ts'
import { newRto, PERIOD, type Rto } from './support/assessing.ts'
import { minimalUnitRecord, startTestService, type TestService } from './support/index.ts'

describe('assessment statuses across RTOs', () => {
  let t: TestService
  let validated: Rto
  let stale: Rto
  let neverAssessed: Rto
  let nothing: Rto

  before(async () => {
    t = await startTestService()
    ;[validated, stale, neverAssessed, nothing] = await Promise.all([newRto(t), newRto(t), newRto(t), newRto(t)])
    for (const rto of [validated, stale, neverAssessed]) await rto.reporter.submitted(await minimalUnitRecord())
    for (const rto of [validated, stale]) await rto.assessor.assess()
    await stale.reporter.submitted(await minimalUnitRecord())
  })

  after(async () => {
    await t?.close()
  })

  it('each RTO’s status read in one set is the one its own GET validate answers', async () => {
    const rtos = [validated, stale, neverAssessed, nothing]
    const statuses = await assessmentStatusesOf(
      t.service.database.db,
      rtos.map((rto) => rto.rto),
      'NSW',
      PERIOD,
    )
    assert.equal(statuses.size, rtos.length)
    for (const rto of rtos) {
      const own = await rto.assessor.status()
      assert.equal(own.status, 200, own.text)
      assert.deepEqual(statuses.get(rto.rto), own.json, rto.rto)
    }
    assert.deepEqual(
      rtos.map((rto) => statuses.get(rto.rto)!.assessmentStatus),
      ['Validated', 'Required', 'Required', 'Required'],
    )
    assert.ok(statuses.get(stale.rto)!.completedAt, 'the stale RTO’s completed assessment stays readable')
    assert.equal(statuses.get(nothing.rto)!.requestedAt, null)
  })

  it('another jurisdiction or period of the same RTOs has no assessment', async () => {
    const statuses = await assessmentStatusesOf(t.service.database.db, [validated.rto], 'VIC', PERIOD)
    assert.equal(statuses.get(validated.rto)!.assessmentStatus, 'Required')
    assert.equal(statuses.get(validated.rto)!.requestedAt, null)
    assert.deepEqual(await assessmentStatusesOf(t.service.database.db, [], 'NSW', PERIOD), new Map())
  })
})
