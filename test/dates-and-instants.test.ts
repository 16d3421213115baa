// Exactness of dates and instants (issue 30): every calendar date the service takes lies from
// 1900-01-01 to 9999-12-31 (src/domain/calendar.ts), outside it a structural 400 naming the access
// path, so nothing accepted at upload fails later at submit; reporting period codes follow the same
// years; changedSince takes every ISO 8601 spelling of a UTC instant and refuses any other offset.
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  EARLIEST_DATE,
  EARLIEST_YEAR,
  isCalendarDate,
  LATEST_DATE,
  LATEST_YEAR,
  utcInstant,
} from '../src/domain/calendar.ts'
import { EARLIEST_NAT_YEAR, LATEST_NAT_YEAR } from '../packages/avetmiss/src/index.ts'
import { parseReleaseFile, type ReleaseFileError } from '../src/modules/reference-data/release-file.ts'
import { allOf, Reporter, startTestService, V1, world, type TestService } from './support/index.ts'

describe('dates the service accepts', () => {
  it('a calendar date is a day that exists from 1900-01-01 to 9999-12-31', () => {
    for (const date of [EARLIEST_DATE, LATEST_DATE, '2028-02-29', '2000-02-29', '2026-12-31'])
      assert.equal(isCalendarDate(date), true, date)
    for (const date of [
      '0000-01-01',
      '0001-01-01',
      '1899-12-31',
      '2026-02-29',
      '1900-02-29',
      '2026-13-01',
      '10000-01-01',
      '2026-1-01',
      ' 2026-01-01',
    ])
      assert.equal(isCalendarDate(date), false, date)
  })

  it('a reference-data release file with a date outside the range is refused whole, naming the line', () => {
    assert.throws(
      () =>
        parseReleaseFile(
          'code,description,businessEffectiveFrom,businessEffectiveTo\nA,Alpha,0000-01-01,\nB,Bravo,1900-01-01,9999-12-31\n',
          'x.csv',
        ),
      (error: ReleaseFileError) => {
        assert.deepEqual(error.problems, [
          'line 2: businessEffectiveFrom "0000-01-01" is not a date (YYYY-MM-DD) from 1900-01-01 to 9999-12-31',
        ])
        return true
      },
    )
  })

  it('the NAT library reads and writes the same range of dates as the service', () => {
    assert.deepEqual([EARLIEST_NAT_YEAR, LATEST_NAT_YEAR], [EARLIEST_YEAR, LATEST_YEAR])
  })
})

describe('changedSince: the ISO 8601 forms of a UTC instant', () => {
  it('every spelling of the same UTC instant becomes one text; other offsets and impossible instants are refused', () => {
    const forms: [string, string | undefined][] = [
      ['1901-01-01T00:00:00Z', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00z', '1901-01-01T00:00:00Z'],
      ['1901-01-01t00:00:00Z', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00+00:00', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00+0000', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00+00', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00-00:00', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00Z', '1901-01-01T00:00:00Z'],
      ['1901-01-01T00:00:00.000Z', '1901-01-01T00:00:00Z'],
      ['19010101T000000Z', '1901-01-01T00:00:00Z'],
      ['19010101T000000+0000', '1901-01-01T00:00:00Z'],
      ['2026-05-04T03:02:01.5Z', '2026-05-04T03:02:01.5Z'],
      ['2026-05-04T03:02:01,5+00:00', '2026-05-04T03:02:01.5Z'],
      ['2026-05-04T03:02:01.123456Z', '2026-05-04T03:02:01.123456Z'],
      ['2026-05-04T03:02:01.123456789Z', '2026-05-04T03:02:01.123456Z'], // cut to the microsecond, never rounded up
      ['2026-05-04T03:02:01.120000Z', '2026-05-04T03:02:01.12Z'],
      ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
      ['2026-05-04T03:02:01+10:00', undefined], // another offset: refused, not converted
      ['2026-05-04T03:02:01-05:00', undefined],
      ['2026-05-04T03:02:01+00:30', undefined],
      ['2026-05-04T03:02:01', undefined], // no zone: local time, not an instant
      ['2026-05-04', undefined],
      ['2026-05-04T24:00:00Z', undefined],
      ['2026-05-04T23:60:00Z', undefined],
      ['2026-05-04T23:59:60Z', undefined],
      ['2026-02-29T00:00:00Z', undefined],
      ['0000-01-01T00:00:00Z', undefined],
      ['1899-12-31T23:59:59Z', undefined],
      ['2026-05-04T03:02:01.Z', undefined],
      ['2026-05-04T03:02:01.1234567890Z', undefined],
      ['2026-0504T030201Z', undefined], // basic and extended mixed
      ['2026-05-04 03:02:01Z', undefined],
    ]
    for (const [form, expected] of forms) assert.equal(utcInstant(form), expected, form)
  })

  describe('over HTTP', () => {
    let t: TestService
    let token: string
    before(async () => {
      t = await startTestService()
      token = await t.token('demo-rto-1', 'demo-secret-1', 'vet:reference-data')
    })
    after(() => t.close())

    const sync = (changedSince: string, rest = '') =>
      fetch(
        `${t.baseUrl}${V1}/classification?classification=country&PageSize=3&changedSince=${encodeURIComponent(changedSince)}${rest}`,
        { headers: { authorization: `Bearer ${token}` } },
      ).then(async (response) => ({ status: response.status, json: (await response.json()) as any }))

    it('GET classification answers the same page for every spelling of a UTC instant, and 400 naming query.changedSince for another offset', async () => {
      const full = await sync('1901-01-01T00:00:00Z')
      assert.equal(full.status, 200, JSON.stringify(full.json))
      assert.ok(full.json.numberOfResults > 0)
      for (const form of [
        '1901-01-01T00:00:00+00:00',
        '1901-01-01T00:00:00+0000',
        '1901-01-01T00:00:00+00',
        '1901-01-01T00:00:00.000000z',
        '19010101T000000Z',
      ]) {
        const same = await sync(form)
        assert.equal(same.status, 200, `${form}: ${JSON.stringify(same.json)}`)
        assert.deepEqual(same.json, full.json, form)
      }
      // A watermark taken from a page is the largest sysEffectiveFrom seen; sent back with +00:00 it
      // is the same watermark as with Z.
      const mark = full.json.results.at(-1).sysEffectiveFrom as string
      const withZ = await sync(new Date(mark).toISOString())
      const withOffset = await sync(new Date(mark).toISOString().replace('Z', '+00:00'))
      assert.equal(withZ.status, 200)
      assert.deepEqual(withOffset.json, withZ.json)
      for (const form of ['1901-01-01T10:00:00+10:00', '1901-01-01T00:00:00', '0000-01-01T00:00:00Z']) {
        const refused = await sync(form)
        assert.equal(refused.status, 400, form)
        assert.deepEqual(
          refused.json.errors.map((e: any) => e.accessPath),
          ['query.changedSince'],
          `${form}: ${JSON.stringify(refused.json.errors)}`,
        )
      }
    })
  })
})

describe('dates over HTTP', () => {
  let t: TestService
  let r: Reporter
  before(async () => {
    t = await startTestService()
    r = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
  })
  after(() => t.close())

  it('a subject enrolment whose lifecycle date is 0000-01-01 is refused at upload with a 400 naming the access path, and nothing is stored', async () => {
    const w = await world()
    const batch = await r.newBatch()
    const body = {
      ...w.subjectEnrolment,
      lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '0000-01-01' }],
    }
    const response = await r.request('POST', r.batchPath(batch, '/subjectenrolment'), body)
    assert.equal(response.status, 400, response.text)
    assert.equal(response.json.type, '/problems/structural-validation')
    assert.deepEqual(response.json.errors, [
      {
        accessPath: '$.lifecycle[0].studentActivityDate',
        message: 'must be a real calendar date in the form YYYY-MM-DD, from 1900-01-01 to 9999-12-31',
      },
    ])
    const read = await r.request(
      'GET',
      r.batchPath(batch, `/subjectenrolment/${w.subjectEnrolment.subjectEnrolmentUID}`),
    )
    assert.equal(read.status, 404)
  })

  it('every date field of every resource is held to the range: 1899-12-31 is refused, each failure at its access path', async () => {
    const w = await world()
    const batch = await r.newBatch()
    const cases: [string, Record<string, unknown>, string][] = [
      ['student', { ...w.student, dateOfBirth: '1899-12-31' }, '$.dateOfBirth'],
      ['subjectoffering', { ...w.subjectOffering, startDate: '1899-12-31' }, '$.startDate'],
      ['subjectenrolment', { ...w.subjectEnrolment, activityEndDate: '0001-01-01' }, '$.activityEndDate'],
      ['programenrolment', { ...w.programEnrolment, commencementDate: '1899-12-31' }, '$.commencementDate'],
    ]
    for (const [segment, body, accessPath] of cases) {
      const response = await r.request('POST', r.batchPath(batch, `/${segment}`), body)
      assert.equal(response.status, 400, `${segment}: ${response.text}`)
      assert.deepEqual(
        response.json.errors.map((e: any) => e.accessPath),
        [accessPath],
        segment,
      )
    }
  })

  it('search-by-period with a date or a period outside the range answers 400 naming the parameter, not 500', async () => {
    const cases: [string, string[]][] = [
      ['activityDateFrom=0000-01-01&activityDateTo=0000-01-01', ['query.activityDateFrom', 'query.activityDateTo']],
      ['activityDateFrom=1899-12-31&activityDateTo=2026-01-01', ['query.activityDateFrom']],
      ['reportingPeriods=000001', ['query.reportingPeriods[0]']],
      ['reportingPeriods=202601,189904', ['query.reportingPeriods[1]']],
    ]
    for (const [query, paths] of cases) {
      const response = await r.request('GET', `${V1}/search-by-period?resourceType=Student&${query}`)
      assert.equal(response.status, 400, `${query}: ${response.text}`)
      assert.deepEqual(
        response.json.errors.map((e: any) => e.accessPath),
        paths,
        query,
      )
    }
    const edges = await r.request(
      'GET',
      `${V1}/search-by-period?resourceType=Student&activityDateFrom=1900-01-01&activityDateTo=9999-12-31`,
    )
    assert.equal(edges.status, 200, edges.text)
    const periods = await r.request('GET', `${V1}/search-by-period?resourceType=Student&reportingPeriods=190001,999904`)
    assert.equal(periods.status, 200, periods.text)
    const uid = await r.request('POST', `${V1}/uid-match`, {
      resourceType: 'Student',
      reportingPeriod: '000001',
      resourceUIDs: [randomUUID()],
    })
    assert.equal(uid.status, 400, uid.text)
    assert.deepEqual(
      uid.json.errors.map((e: any) => e.accessPath),
      ['$.reportingPeriod'],
    )
  })

  it('the boundary dates, 9999-12-31 and 1900-01-01, upload, validate and submit (a lifecycle date that far ahead is a business-rule Error, not a structural one)', async () => {
    const w = await world()
    w.subjectEnrolment.activityEndDate = LATEST_DATE
    w.subjectOffering.endDate = LATEST_DATE
    w.programEnrolment.expectedCompletionDate = LATEST_DATE
    w.programOffering.endDate = LATEST_DATE
    w.student.dateOfBirth = EARLIEST_DATE
    const batch = await r.batchWith(allOf(w))
    const { status, results } = await r.validate(batch)
    assert.equal(status.validationStatus, 'Validated')
    assert.deepEqual(
      results.filter((x) => x.validationMessageLevel === 'Error'),
      [],
    )
    const submitted = await r.submit(batch)
    assert.equal(submitted.status, 200, submitted.text)
    await r.waitForReconciled(batch)
    const held = await r.heldState('subjectenrolment', w.subjectEnrolment.subjectEnrolmentUID)
    assert.equal(held.stateInSubmission, 'In submission', JSON.stringify(held))
  })

  it('lifecycle dates at either end of the range never fail a submit: it is submitted, or refused with a 409 for its blocking results, never a 500', async () => {
    for (const date of [EARLIEST_DATE, LATEST_DATE]) {
      const w = await world()
      w.subjectEnrolment.activityStartDate = date
      w.subjectEnrolment.activityEndDate = date
      w.subjectEnrolment.lifecycle = [{ studentStatus: 'Commenced', studentActivityDate: date }]
      w.programEnrolment.lifecycle = [{ ...w.programEnrolment.lifecycle[0], studentActivityDate: date }]
      const batch = await r.batchWith(allOf(w))
      const { results } = await r.validate(batch)
      const blocking = results.some((x) => x.validationMessageLevel === 'Error')
      const submitted = await r.submit(batch)
      assert.equal(submitted.status, blocking ? 409 : 200, `${date}: ${submitted.text}`)
      if (!blocking) await r.waitForReconciled(batch)
    }
    // The day before the range is not taken at all.
    const w = await world()
    const outside = await r.request('POST', r.batchPath(await r.newBatch(), '/subjectenrolment'), {
      ...w.subjectEnrolment,
      lifecycle: [{ studentStatus: 'Commenced', studentActivityDate: '1899-12-31' }],
    })
    assert.equal(outside.status, 400, outside.text)
  })
})
