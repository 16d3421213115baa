// Issue 30: validation set rules may run in key slices of the batch (SetRule.slicedParts; the embedded
// database's default, VALIDATION_SET_RULE_SLICE_RECORDS 5,000 records a statement): each slice of the
// batch's records its own statement into a temporary table, the results stored from it over the whole
// rule (or, for a rule with fromPieces, its groups joined and counted over the slices' rows). A slice
// boundary must change nothing: with key slices of two records, a validation stores exactly the results,
// in the same order (seq) and grouping, that one statement per rule (or part) stores, on both databases,
// on a small batch where every sliced rule finds groups, and where groups take in records of other
// slices: students sharing an identity (BRTS03100), a deferred program enrolment and its commenced
// subject enrolments (BRTS01430), program enrolments no subject enrolment references and one that is
// referenced (BRTS01440), a voided location and a voided student each still referenced (BRTS02180,
// BRTS02190), voids of records never submitted (BRTS02200), unresolved references (BRTS02100), and a
// voided subject enrolment with the voided student it references (BRTS02210: not sliced, its groups
// beside the others').
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { sql } from 'kysely'
import { startTestService, type TestService } from './support/index.ts'
import { loadBatch } from '../bench/batch-loader.ts'
import { keySlicesOf, runSetRule, runValidation } from '../src/modules/validation/engine.ts'
import { rules } from '../src/modules/validation/rules/index.ts'
import type { SetRule } from '../src/modules/validation/rule.ts'
import { utcToday } from '../src/domain/reporting-period.ts'

const RTO = '90001'
const SLICE = 2
const BROKEN = 6 // subject enrolments with five references that resolve to nothing
const VOIDED = 3 // voided students, each referenced by two subject enrolments voided with the wrong reason
/** The rules run in key slices, each with results in the test's batch. */
const SLICED = ['BRTS01430', 'BRTS01440', 'BRTS02100', 'BRTS02180', 'BRTS02190', 'BRTS02200', 'BRTS03100']

type Body = Record<string, unknown>
const example = async (name: string): Promise<Body> =>
  JSON.parse(await readFile(new URL(`../examples/minimal-unit-record/${name}.json`, import.meta.url), 'utf8'))

interface Stored {
  group: string
  rule: string
  resource_type: string
  resource_uid: string
  message: string
  detail: string
}

/** Results in stored order, each group told by where it first appears (grouping ids name the attempt). */
function inOrder(rows: Stored[]): string[] {
  const groups = new Map<string, number>()
  return rows.map((row) => {
    if (!groups.has(row.group)) groups.set(row.group, groups.size)
    return `${groups.get(row.group)} ${row.rule} ${row.resource_type} ${row.resource_uid} ${row.message} ${row.detail}`
  })
}

describe('validation set rules in key slices of the batch (issue 30)', () => {
  let t: TestService
  let headers: { authorization: string }
  let token: string
  const db = () => t.service.database.db
  const v1 = () => `${t.baseUrl}/vet-provider/v1`

  const resultsOf = async (runId: string, attempt?: number) => {
    const { rows } = await sql<Stored>`
      SELECT x.validation_grouping_id::text AS "group", x.technical_rule_id AS rule, x.resource_type,
             x.resource_uid::text AS resource_uid, x.message,
             concat_ws(' ', x.related_validation_result_count, x.data_source, array_to_string(x.access_path, '.'),
                       x.change_tracking_identifier, x.validation_message_level) AS detail
        FROM validation_result x
       WHERE x.rto_id = ${RTO} AND x.run_id = ${runId}::uuid
         AND x.attempt = ${attempt === undefined ? sql`(SELECT r.attempt FROM validation_run r WHERE r.rto_id = x.rto_id AND r.run_id = x.run_id AND r.status = 'Validated')` : sql`${attempt}::int`}
       ORDER BY x.seq`.execute(db())
    return rows
  }

  /** Requests a validation of the batch and runs it with `setRuleSliceRecords`; its run id and results. */
  const validated = async (setRuleSliceRecords: number | null) => {
    const requested = await fetch(`${v1()}/NSW/transaction-batch/${token}/validate`, { method: 'POST', headers })
    assert.equal(requested.status, 201, await requested.text())
    const { run_id: runId } = (
      await sql<{ run_id: string }>`
        SELECT run_id FROM validation_run WHERE rto_id = ${RTO} AND transaction_batch_token = ${token} AND status = 'Queued'`.execute(
        db(),
      )
    ).rows[0]!
    const deps = {
      db: db(),
      referenceLookup: t.service.referenceLookup,
      logger: t.service.logger,
      setRuleSliceRecords,
    }
    assert.equal(await runValidation(deps, RTO, runId), 'validated')
    return { runId, results: await resultsOf(runId) }
  }

  before(async () => {
    // Workers off: the test runs each validation itself, with and without key slices.
    t = await startTestService({ service: { workers: false } })
    headers = { authorization: `Bearer ${await t.token('demo-rto-1')}` }
    const student = await example('student')
    const enrolment = await example('subjectenrolment-in-program')
    const program = await example('programenrolment')
    const location = await example('deliverylocation')
    const rows: { resource_type: string; resource_uid: string; change_tracking_identifier: string; body: Body }[] = []
    const add = (type: string, uid: string, body: Body) =>
      rows.push({ resource_type: type, resource_uid: uid, change_tracking_identifier: `${type}-${rows.length}`, body })
    const subjectEnrolment = (uid: string, studentUID: string, extra: Body = {}) => ({
      ...enrolment,
      subjectEnrolmentUID: uid,
      changeTrackingIdentifier: `SubjectEnrolment-${rows.length}`,
      studentUID,
      subjectOfferingUID: randomUUID(),
      programEnrolmentUID: randomUUID(),
      locations: [
        { deliveryLocationUID: randomUUID(), hoursAtLocation: 25 },
        { deliveryLocationUID: randomUUID(), hoursAtLocation: 25 },
      ],
      ...extra,
    })
    const addSubjectEnrolment = (studentUID: string, extra: Body = {}) => {
      const uid = randomUUID()
      add('SubjectEnrolment', uid, subjectEnrolment(uid, studentUID, extra))
    }
    const addStudent = (extra: Body = {}) => {
      const studentUID = randomUUID()
      add('Student', studentUID, {
        ...student,
        studentUID,
        changeTrackingIdentifier: `Student-${rows.length}`,
        ...extra,
      })
      return studentUID
    }
    const addProgramEnrolment = (extra: Body = {}) => {
      const uid = randomUUID()
      add('ProgramEnrolment', uid, {
        ...program,
        programEnrolmentUID: uid,
        changeTrackingIdentifier: `ProgramEnrolment-${rows.length}`,
        ...extra,
      })
      return uid
    }
    for (let i = 0; i < BROKEN; i++) addSubjectEnrolment(randomUUID())
    const voided = { isVoided: true, voidedReason: 'remove_duplicate_record' }
    for (let i = 0; i < VOIDED; i++) {
      const studentUID = addStudent(voided)
      for (let k = 0; k < 2; k++) addSubjectEnrolment(studentUID, voided)
      // Two of the voided students are still referenced by a subject enrolment that stays (BRTS02190).
      if (i < 2) addSubjectEnrolment(studentUID)
    }
    // Students sharing an identity: three as in the example, two more under another name (BRTS03100).
    for (let i = 0; i < 3; i++) addStudent()
    for (let i = 0; i < 2; i++) addStudent({ familyName: 'Other' })
    // A voided delivery location two subject enrolments still use (BRTS02180).
    const locationUID = randomUUID()
    add('DeliveryLocation', locationUID, { ...location, deliveryLocationUID: locationUID, ...voided })
    for (let i = 0; i < 2; i++)
      addSubjectEnrolment(randomUUID(), { locations: [{ deliveryLocationUID: locationUID, hoursAtLocation: 50 }] })
    // Program enrolments no subject enrolment references (BRTS01440) and one that is referenced.
    for (let i = 0; i < 3; i++) addProgramEnrolment()
    addSubjectEnrolment(randomUUID(), { programEnrolmentUID: addProgramEnrolment() })
    // Deferred program enrolments, each with two commenced subject enrolments (BRTS01430).
    for (let i = 0; i < 2; i++) {
      const deferred = addProgramEnrolment({
        lifecycle: [
          { studentStatus: 'Commenced', studentActivityDate: '2026-10-05' },
          { studentStatus: 'Deferred', studentActivityDate: '2026-10-20' },
        ],
      })
      for (let k = 0; k < 2; k++) addSubjectEnrolment(randomUUID(), { programEnrolmentUID: deferred })
    }
    ;({ token } = await loadBatch(db(), rows.length, { rto: RTO, clientId: 'demo-rto-1' }, function* () {
      yield rows
    }))
    // The loader writes every record as not voided; the voids as an upload would store them.
    await sql`UPDATE batch_record SET is_voided = true
               WHERE rto_id = ${RTO} AND transaction_batch_token = ${token} AND body->>'isVoided' = 'true'`.execute(
      db(),
    )
  })
  after(() => t?.close())

  let whole: { runId: string; results: Stored[] }

  it('a validation in key slices of two records stores what one statement per rule stores, in the same order and groups', async () => {
    whole = await validated(null)
    const sliced = await validated(SLICE)
    const ruleOf = (rule: string) => whole.results.filter((row) => row.rule === rule)
    for (const rule of SLICED) assert.ok(ruleOf(rule).length > 0, `${rule} finds something in the batch`)
    // Every subject enrolment's offering and locations resolve to nothing, and its program enrolment
    // unless it names one of the batch: 76 unresolved references in all.
    assert.equal(ruleOf('BRTS02100').length, 76)
    assert.equal(
      ruleOf('BRTS02200').length,
      1 + VOIDED * 3,
      'the location, the voided students and their subject enrolments',
    )
    assert.equal(ruleOf('BRTS03100').length, 5, 'the students sharing an identity')
    assert.equal(
      ruleOf('BRTS01430').length,
      6,
      'two deferred program enrolments, each with two commenced subject enrolments',
    )
    assert.equal(new Set(ruleOf('BRTS01430').map((row) => row.group)).size, 2, 'a group per deferred program enrolment')
    assert.equal(ruleOf('BRTS01440').length, 3, 'the program enrolments no subject enrolment references')
    assert.equal(
      ruleOf('BRTS02190').length,
      4,
      'two voided students, each with the subject enrolment still referencing it',
    )
    assert.equal(ruleOf('BRTS02180').length, 3, 'the voided location and the two subject enrolments using it')
    // A voided subject enrolment and the voided student it references are one group: the student is in
    // a slice of the students, the enrolment in one of the subject enrolments (the rule is one statement).
    const voidGroups = new Map<string, Set<string>>()
    for (const row of ruleOf('BRTS02210'))
      voidGroups.set(row.group, (voidGroups.get(row.group) ?? new Set()).add(row.resource_type))
    assert.equal(voidGroups.size, VOIDED * 2)
    assert.ok([...voidGroups.values()].every((types) => types.has('Student') && types.has('SubjectEnrolment')))
    assert.deepEqual(inOrder(sliced.results), inOrder(whole.results))
    const left = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE 'validation_pieces_%' OR relname LIKE 'validation_found_%'`.execute(
      db(),
    )
    assert.equal(left.rows[0]!.n, 0, 'no temporary table is left behind')
  })

  it('runs each sliced rule one key slice at a time, its results the rule as one statement (per part)', async () => {
    const scope = { rto: RTO, token, today: utcToday() }
    const slicesOf = keySlicesOf(db(), scope, SLICE)
    const enrolmentSlices = await slicesOf('SubjectEnrolment')
    const enrolments = (
      await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM batch_record WHERE rto_id = ${RTO} AND transaction_batch_token = ${token}
         AND resource_type = 'SubjectEnrolment'`.execute(db())
    ).rows[0]!.n
    // Slices of two: the bounded ones and the open end after the last (empty after an exact fit).
    assert.equal(enrolmentSlices.length, Math.floor(enrolments / SLICE) + 1)
    assert.equal(enrolmentSlices[0]!.after, undefined)
    assert.equal(enrolmentSlices.at(-1)!.upTo, undefined)
    for (const [i, slice] of enrolmentSlices.entries())
      if (i > 0) assert.equal(slice.after, enrolmentSlices[i - 1]!.upTo, 'each slice starts where the one before ended')
    for (const [i, id] of SLICED.entries()) {
      let asked = 0
      const counting = (type: Parameters<typeof slicesOf>[0]) => {
        asked++
        return slicesOf(type)
      }
      const rule = rules.find((r): r is SetRule => r.kind === 'set' && r.technicalRuleId === id)!
      assert.ok(rule.slicedParts, `${id} runs in key slices`)
      // Results written three rows a statement (the result slices) under an attempt of its own.
      await runSetRule(db(), rule, scope, whole.runId, 91 + i, true, 3, counting)
      const sliced = await resultsOf(whole.runId, 91 + i)
      assert.deepEqual(inOrder(sliced), inOrder(whole.results.filter((row) => row.rule === id)), id)
      assert.ok(asked > 0, `${id}: the key slices were asked for`)
    }
  })
})
