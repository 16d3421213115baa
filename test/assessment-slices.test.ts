// Issue 30: an assessment copies its period into a working copy in slices (assessment.stage.ts), one
// statement per slice, and the rules read the copy. A slice boundary must change nothing: with slices of
// three records, every rule finds exactly what its query finds over the held data directly (the rules'
// SQL without a working copy, rules/sql.ts), with the same grouping, and the copy is gone afterwards.
// A new attempt deletes the copies earlier attempts of its run left (a worker that died), in slices.
// The rules that run in key slices of the copy (AssessmentRule.sliced, the same slices of three) store
// their results in the order the one statement does.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { PERIOD, assessmentScopeOf, startTestService, tokenFor, waitFor, type TestService } from './support/index.ts'
import { loadBatch } from '../bench/batch-loader.ts'
import { assessmentRules } from '../src/modules/assessment/index.ts'
import * as assessment from '../src/modules/assessment/assessment.repo.ts'
import { dropStage, stagePeriod } from '../src/modules/assessment/assessment.stage.ts'
import {
  programEnrolmentsInPeriod,
  statusAsAt,
  studentsInPeriod,
  subjectEnrolmentsInPeriod,
} from '../src/modules/assessment/rules/sql.ts'

const RECORDS = 300

interface Finding {
  rule: string
  group: string
  resource_type: string
  resource_uid: string
  message: string
}

/** Findings as groups: each group its members (type, uid, message) sorted, the groups sorted. */
function grouped(findings: Finding[]): string[] {
  const groups = new Map<string, string[]>()
  for (const f of findings) {
    const key = `${f.rule} ${f.group}`
    groups.set(key, [...(groups.get(key) ?? []), `${f.resource_type} ${f.resource_uid} ${f.message}`])
  }
  return [...groups.entries()].map(([key, members]) => `${key.split(' ')[0]}: ${members.sort().join(' | ')}`).sort()
}

describe('assessment working copy in slices (issue 30)', () => {
  let t: TestService
  let headers: { authorization: string }

  before(async () => {
    // The copy is the embedded database's default only: asked for, so PostgreSQL runs it too.
    t = await startTestService({ env: { ASSESSMENT_SLICE_RECORDS: '3', ASSESSMENT_WORKING_COPY: 'true' } })
    headers = { authorization: `Bearer ${await tokenFor(t.baseUrl)}` }
  })
  after(() => t?.close())

  it("a slice boundary does not change an assessment rule's findings or their grouping", async () => {
    const db = t.service.database.db
    const { token } = await loadBatch(db, RECORDS)
    const batch = `${t.baseUrl}/vet-provider/v1/NSW/transaction-batch/${token}`
    const until = (what: string, url: string, field: string, value: string) =>
      waitFor(what, async () => ((await (await fetch(url, { headers })).json())[field] === value ? true : undefined), {
        timeoutMs: 120_000,
      })
    assert.equal((await fetch(`${batch}/validate`, { method: 'POST', headers })).status, 201)
    await until('the batch validated', `${batch}/validate`, 'validationStatus', 'Validated')
    const submitted = await fetch(`${batch}/submit`, { method: 'POST', headers })
    assert.equal(submitted.status, 200, await submitted.text())
    // Training dates the sliced rules find fault with, on about a third of the held subject enrolments:
    // starting before the program enrolment's commencement (DQTS10110, a subject enrolment and its program
    // enrolment in one group) or after the subject enrolment's own Commenced date (DQTS10030).
    await sql`UPDATE held_record SET body = jsonb_set(body, '{activityStartDate}',
                CASE WHEN resource_uid::text < '3' THEN '"2026-10-01"'::jsonb ELSE '"2026-11-02"'::jsonb END)
               WHERE rto_id = '90001' AND resource_type = 'SubjectEnrolment' AND is_current
                 AND (resource_uid::text < '3' OR resource_uid::text >= 'c')`.execute(db)
    // One person as students of two clients (DQTS10060, keyed): the first 12 held students by UID given one
    // identity, the first 4 of them reported by another client: one group that crosses slices of three.
    const firstStudents = (n: number) => sql`(SELECT resource_uid FROM held_record
        WHERE rto_id = '90001' AND resource_type = 'Student' AND is_current ORDER BY resource_uid LIMIT ${n}::int)`
    await sql`UPDATE held_record SET body = body || '{"familyName": "Doe", "firstGivenName": "Sam", "dateOfBirth": "2001-02-03"}'::jsonb
               WHERE rto_id = '90001' AND resource_type = 'Student' AND is_current AND resource_uid IN ${firstStudents(12)}`.execute(
      db,
    )
    await sql`UPDATE held_record SET submitted_by_client = 'other-sms'
               WHERE rto_id = '90001' AND resource_type = 'Student' AND is_current AND resource_uid IN ${firstStudents(4)}`.execute(
      db,
    )
    const period = `${t.baseUrl}/vet-provider/v1/reporting-period/NSW/${PERIOD}/validate`
    assert.equal((await fetch(period, { method: 'POST', headers })).status, 201)
    await until('the period assessed', period, 'assessmentStatus', 'Validated')

    const run = (
      await sql<{ run_id: string; attempt: number }>`
        SELECT run_id, attempt FROM assessment_run WHERE rto_id = '90001' AND status = 'Completed'`.execute(db)
    ).rows[0]!
    const staged = (
      await sql<Finding>`
        SELECT technical_rule_id AS rule, assessment_grouping_id::text AS "group", resource_type, resource_uid::text AS resource_uid, message
          FROM assessment_result WHERE rto_id = '90001' AND run_id = ${run.run_id}::uuid AND attempt = ${run.attempt}::int`.execute(
        db,
      )
    ).rows

    // Each rule's query over the held data itself (no working copy), as one statement.
    const scope = assessmentScopeOf()
    const direct: Finding[] = []
    for (const rule of assessmentRules) {
      const rows = await db.transaction().execute(async (tx) => {
        await assessment.ruleSessionSettings(tx)
        return (
          await sql<Finding>`
            SELECT ${rule.technicalRuleId}::text AS rule, f.group_key AS "group", f.resource_type, f.resource_uid::text AS resource_uid, f.message
              FROM (${rule.query(scope)}) AS f`.execute(tx)
        ).rows
      })
      direct.push(...rows)
    }
    assert.ok(direct.length > 0, 'the data gives the rules something to find')
    assert.deepEqual(grouped(staged), grouped(direct))
    // The rules run in key slices of the working copy (three records a slice here, AssessmentRule.sliced)
    // store their results in the order of the one statement over the held data (seq).
    const sliced = assessmentRules.filter((rule) => rule.sliced)
    assert.deepEqual(
      sliced.map((rule) => rule.technicalRuleId),
      ['DQTS10020', 'DQTS10030', 'DQTS10040', 'DQTS10100', 'DQTS10110'],
    )
    let found = 0
    for (const rule of sliced) {
      const members = (rows: Finding[]) => rows.map((f) => `${f.resource_type} ${f.resource_uid} ${f.message}`)
      const stored = await sql<Finding>`
        SELECT resource_type, resource_uid::text AS resource_uid, message FROM assessment_result
         WHERE rto_id = '90001' AND run_id = ${run.run_id}::uuid AND attempt = ${run.attempt}::int
           AND technical_rule_id = ${rule.technicalRuleId} ORDER BY seq`.execute(db)
      const ordered = await db.transaction().execute(async (tx) => {
        await assessment.ruleSessionSettings(tx)
        return sql<Finding>`
          SELECT f.resource_type, f.resource_uid::text AS resource_uid, f.message FROM (${rule.query(scope)}) AS f
           ORDER BY f.group_key, f.resource_type, f.resource_uid`.execute(tx)
      })
      found += stored.rows.length
      assert.deepEqual(members(stored.rows), members(ordered.rows), rule.technicalRuleId)
    }
    assert.ok(found > 20, 'the sliced rules find something to order')
    // The keyed rules (students grouped by a key, read in slices of three) find groups that cross slices.
    assert.deepEqual(
      assessmentRules.filter((rule) => rule.keyed).map((rule) => rule.technicalRuleId),
      ['DQTS10010', 'DQTS10050', 'DQTS10060'],
    )
    const sharing = staged.filter((f) => f.rule === 'DQTS10050')
    assert.ok(new Set(sharing.map((f) => f.group)).size < sharing.length, 'students sharing a USI are found, grouped')
    const oneIdentity = staged.filter((f) => f.rule === 'DQTS10060')
    assert.equal(new Set(oneIdentity.map((f) => f.group)).size, 1, 'the students of one identity are one group')
    assert.equal(oneIdentity.length, 12, 'the twelve students of one identity, across slices of three')
    const left = await sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM assessment_stage WHERE rto_id = '90001'`.execute(db)
    assert.equal(left.rows[0]!.n, 0, "the attempt's working copy is dropped when it completes")
  })

  it("the working copy in slices says of every record what the definitions say; a new attempt deletes its run's earlier copies", async () => {
    // The data submitted by the test above. Its program enrolments are in October 2026 by their lifecycle;
    // in 202701 only through their subject enrolments' training (to 2027-03-26): both marking passes count.
    const db = t.service.database.db
    const runId = '00000000-0000-4000-8000-000000000030'
    const scope = (period: number, attempt: number) => ({ ...assessmentScopeOf(period), stage: { runId, attempt } })
    const copied = async () =>
      (
        await sql<{ attempt: number; n: number }>`
          SELECT attempt, count(*)::int AS n FROM assessment_stage WHERE rto_id = '90001' AND run_id = ${runId}::uuid
           GROUP BY attempt ORDER BY attempt`.execute(db)
      ).rows
    for (const [attempt, period] of [
      [1, PERIOD],
      [2, 202701],
    ] as const) {
      await stagePeriod(db, scope(period, attempt), 50)
      const { stage: _, ...direct } = scope(period, attempt)
      const staged = await sql`
        SELECT resource_type, uid::text AS uid, in_period, state_at_period_end, state_as_at FROM assessment_stage
         WHERE rto_id = '90001' AND run_id = ${runId}::uuid AND attempt = ${attempt}::int ORDER BY resource_type, uid`.execute(
        db,
      )
      const expected = await sql<{ resource_type: string; in_period: boolean }>`
        SELECT h.resource_type, h.resource_uid::text AS uid,
               CASE h.resource_type
                 WHEN 'SubjectEnrolment' THEN h.resource_uid IN (SELECT uid FROM ${subjectEnrolmentsInPeriod(direct)} AS x)
                 WHEN 'ProgramEnrolment' THEN h.resource_uid IN (SELECT uid FROM ${programEnrolmentsInPeriod(direct)} AS x)
                 WHEN 'Student' THEN h.resource_uid IN (SELECT uid FROM ${studentsInPeriod(direct)} AS x)
                 ELSE false END AS in_period,
               CASE WHEN h.resource_type IN ('SubjectEnrolment', 'ProgramEnrolment') THEN ${statusAsAt('h', direct.periodEnd)} END AS state_at_period_end,
               CASE WHEN h.resource_type IN ('SubjectEnrolment', 'ProgramEnrolment') THEN ${statusAsAt('h', direct.asAt)} END AS state_as_at
          FROM held_in_submission h
         WHERE h.rto_id = '90001' AND h.resource_type IN ('Student', 'ProgramEnrolment', 'SubjectEnrolment', 'SubjectOffering', 'Subject')
         ORDER BY h.resource_type, h.resource_uid::text`.execute(db)
      for (const type of ['ProgramEnrolment', 'Student'])
        assert.ok(
          expected.rows.filter((row) => row.resource_type === type && row.in_period).length > 50,
          `${period}: more ${type} records in the period than one slice`,
        )
      assert.deepEqual(staged.rows, expected.rows, `${period}: the copy's columns`)
    }
    // Two attempts' copies, as a worker that died leaves one: the new attempt deletes the other's, then its own.
    const both = await copied()
    assert.equal(both.length, 2)
    await dropStage(db, '90001', runId, { otherThan: 2 }, 7)
    assert.deepEqual(await copied(), [both[1]])
    await dropStage(db, '90001', runId, { attempt: 2 }, 7)
    assert.deepEqual(await copied(), [])
  })
})
