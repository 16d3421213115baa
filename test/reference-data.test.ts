// Reference data synchronisation (spec: Reference data synchronisation; Errors 400/404; Limits) and
// the release loader: full and incremental loads, the watermark contract, paging to the end.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, startTestService, V1, type TestService } from './support/index.ts'
import {
  loadRelease,
  loadReleaseFile,
  ReleaseFileError,
  createReferenceLookup,
} from '../src/modules/reference-data/index.ts'
import { parseReleaseFile } from '../src/modules/reference-data/release-file.ts'

const FULL = '1901-01-01T00:00:00Z'

interface SyncedRecord {
  recordId: string
  versionId: number
  code: string
  description: string
  status: string
  sysEffectiveFrom: string
  businessEffectiveTo: string | null
}

/** A consumer written from the README: page while the latest answer says more follow, then advance the watermark; upsert by recordId. */
async function synchronise(
  t: TestService,
  token: string,
  path: string,
  store: { watermark: string; records: Map<string, SyncedRecord> },
  pageSize = 7,
  onPage?: (page: number) => Promise<void>,
) {
  let largest = store.watermark
  const seen: SyncedRecord[] = []
  for (let pageNumber = 1; ; pageNumber++) {
    const separator = path.includes('?') ? '&' : '?'
    const response = await call(
      t.baseUrl,
      'GET',
      `${path}${separator}changedSince=${encodeURIComponent(store.watermark)}&PageNumber=${pageNumber}&PageSize=${pageSize}`,
      { token },
    )
    assert.equal(response.status, 200, response.text)
    if (response.json.results.length === 0) break
    seen.push(...response.json.results)
    await onPage?.(pageNumber)
    if (pageNumber >= response.json.numberOfPages) break // the latest answer's count, never an earlier one
  }
  for (const record of seen) {
    store.records.set(record.recordId, record)
    if (record.sysEffectiveFrom > largest) largest = record.sysEffectiveFrom
  }
  store.watermark = largest // only after every page was processed
  return seen.length
}

const currentOf = (store: { records: Map<string, SyncedRecord> }) =>
  [...store.records.values()].map((r) => `${r.code}|${r.description}|${r.status}`).sort()

describe('reference data', () => {
  let t: TestService
  let token: string
  let dir: string
  before(async () => {
    t = await startTestService()
    token = await t.token()
    dir = await mkdtemp(join(tmpdir(), 'vetrs-refdata-'))
  })
  after(async () => {
    await t.close()
    await rm(dir, { recursive: true, force: true })
  })

  const heldCurrent = async (dataset: string) =>
    (
      await t.service.database.db
        .selectFrom('reference_record_version')
        .select(['code', 'description', 'status'])
        .where('dataset', '=', dataset)
        .where('is_current', '=', true)
        .execute()
    )
      .map((r) => `${r.code}|${r.description}|${r.status}`)
      .sort()

  it('a full load (1901-01-01T00:00:00Z) returns every record of a seeded dataset, with the shared envelope', async () => {
    const response = await call(t.baseUrl, 'GET', `${V1}/reference-data/indigenous-status?changedSince=${FULL}`, {
      token,
    })
    assert.equal(response.status, 200)
    assert.deepEqual(Object.keys(response.json).sort(), [
      'numberOfPages',
      'numberOfResults',
      'pageNumber',
      'pageSize',
      'results',
    ])
    assert.equal(response.json.pageSize, 500)
    const codes = response.json.results.map((r: SyncedRecord) => r.code).sort()
    assert.ok(codes.includes('Aboriginal') && codes.includes('No_value'))
    const aboriginal = response.json.results.find((r: SyncedRecord) => r.code === 'Aboriginal')
    assert.equal(aboriginal.avetmissCode, '1')
    assert.equal(aboriginal.status, 'Active')
    assert.match(aboriginal.sysEffectiveFrom, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  })

  it('classifications are chosen with the classification parameter: the full SACC country list is served', async () => {
    const response = await call(
      t.baseUrl,
      'GET',
      `${V1}/classification?classification=country&changedSince=${FULL}&PageSize=500`,
      { token },
    )
    assert.equal(response.status, 200)
    assert.ok(response.json.numberOfResults > 250)
    assert.ok(response.json.results.some((r: SyncedRecord) => r.code === '1101' && r.description === 'Australia'))
  })

  it('Errors 400: changedSince is required, must be an ISO 8601 UTC datetime; PageSize at most 500; PageNumber positive', async () => {
    for (const query of [
      '',
      '?changedSince=2026-01-01',
      '?changedSince=2026-01-01T00:00:00%2B10:00',
      '?changedSince=yesterday',
      `?changedSince=${FULL}&PageSize=501`,
      `?changedSince=${FULL}&PageNumber=-1`,
      `?changedSince=${FULL}&PageNumber=0`,
    ]) {
      const response = await call(t.baseUrl, 'GET', `${V1}/reference-data/gender${query}`, { token })
      assert.equal(response.status, 400, query)
      assert.equal(response.json.type, '/problems/structural-validation')
    }
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/classification?changedSince=${FULL}`, { token })).status,
      400,
      'no classification named',
    )
  })

  it('Errors 404: an unknown dataset or classification, or a classification asked for as a reference dataset', async () => {
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/reference-data/colours?changedSince=${FULL}`, { token })).status,
      404,
    )
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/reference-data/country?changedSince=${FULL}`, { token })).status,
      404,
    )
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/classification?classification=gender&changedSince=${FULL}`, { token }))
        .status,
      404,
    )
  })

  it('200 with empty results when nothing changed since the watermark', async () => {
    const response = await call(t.baseUrl, 'GET', `${V1}/reference-data/gender?changedSince=2999-01-01T00:00:00Z`, {
      token,
    })
    assert.equal(response.status, 200)
    assert.deepEqual(response.json.results, [])
    assert.equal(response.json.numberOfResults, 0)
  })

  it('the endpoints need the reference-data scope', async () => {
    const { addClient } = await import('../src/platform/auth/clients.service.ts')
    const { secret } = await addClient(t.service.database.db, {
      clientId: 'refdata-less',
      rto: '90001',
      scopes: ['vet:report'],
    })
    const other = await t.token('refdata-less', secret)
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/reference-data/gender?changedSince=${FULL}`, { token: other })).status,
      403,
    )
  })

  it('loader: creates, updates and end-dates as a diff, leaves unchanged records alone, and is idempotent', async () => {
    const db = t.service.database.db
    const first = await loadRelease(
      db,
      'study-reason',
      parseReleaseFile('code\tdescription\nA\tAlpha\nB\tBravo\nC\tCharlie\n', 'x.tsv'),
    )
    // the seeded study reasons are all missing from this release: they are end-dated
    assert.equal(first.created, 3)
    assert.ok(first.endDated > 0)
    const again = await loadRelease(
      db,
      'study-reason',
      parseReleaseFile('code\tdescription\nA\tAlpha\nB\tBravo\nC\tCharlie\n', 'x.tsv'),
    )
    assert.deepEqual(
      { ...again, sysEffectiveFrom: null },
      { dataset: 'study-reason', created: 0, updated: 0, endDated: 0, unchanged: 3, sysEffectiveFrom: null },
    )
    const next = await loadRelease(
      db,
      'study-reason',
      parseReleaseFile('code\tdescription\nA\tAlpha\nB\tBravo (renamed)\nD\tDelta\n', 'x.tsv'),
      { today: '2026-11-22' },
    )
    assert.deepEqual(
      { ...next, sysEffectiveFrom: null },
      { dataset: 'study-reason', created: 1, updated: 1, endDated: 1, unchanged: 1, sysEffectiveFrom: null },
    )
    const held = await heldCurrent('study-reason')
    assert.ok(
      held.includes('A|Alpha|Active') &&
        held.includes('B|Bravo (renamed)|Active') &&
        held.includes('C|Charlie|Inactive') &&
        held.includes('D|Delta|Active'),
    )
    const charlie = await db
      .selectFrom('reference_record_version')
      .select(['business_effective_to'])
      .where('dataset', '=', 'study-reason')
      .where('code', '=', 'C')
      .where('is_current', '=', true)
      .executeTakeFirstOrThrow()
    assert.equal(charlie.business_effective_to, '2026-11-22')
  })

  it('loader: bad files are refused with the line and the reason, and nothing changes', async () => {
    const before = await heldCurrent('school-type')
    const cases: [string, string, RegExp][] = [
      ['dup.tsv', 'code\tdescription\nX\tOne\nX\tTwo\n', /line 3: duplicate code "X" \(first on line 2\)/],
      ['empty.tsv', 'code\tdescription\n\tNothing\n', /line 2: empty code/],
      ['columns.tsv', 'kode\tdescription\nX\tOne\n', /no code column/],
      [
        'dates.csv',
        'code,description,businessEffectiveFrom\nX,One,2026-02-30\n',
        /line 2: businessEffectiveFrom "2026-02-30" is not a date/,
      ],
      ['fields.csv', 'code,description\nX,One,extra\n', /line 2: 3 fields where the header has 2/],
    ]
    for (const [name, content, reason] of cases) {
      const file = join(dir, name)
      await writeFile(file, content)
      await assert.rejects(loadReleaseFile(t.service.database.db, 'school-type', file), (error: unknown) => {
        assert.ok(error instanceof ReleaseFileError)
        assert.match(error.message, reason)
        return true
      })
    }
    assert.deepEqual(await heldCurrent('school-type'), before)
  })

  it('incremental load after a loader run returns exactly the created, updated and end-dated records', async () => {
    const store = { watermark: FULL, records: new Map<string, SyncedRecord>() }
    await synchronise(t, token, `${V1}/reference-data/labour-force-status`, store)
    const release = (await heldCurrent('labour-force-status'))
      .map((line) => line.split('|'))
      .filter(([, , status]) => status === 'Active')
    const [first, second] = release
    const rows = release.slice(2).map(([code, description]) => `${code}\t${description}`)
    rows.push(`${first![0]}\t${first![1]} (changed)`, 'Brand_new\tA new status')
    await loadRelease(
      t.service.database.db,
      'labour-force-status',
      parseReleaseFile(`code\tdescription\n${rows.join('\n')}\n`, 'x.tsv'),
    )
    const response = await call(
      t.baseUrl,
      'GET',
      `${V1}/reference-data/labour-force-status?changedSince=${encodeURIComponent(store.watermark)}`,
      { token },
    )
    const changed = response.json.results.map((r: SyncedRecord) => `${r.code}|${r.status}`).sort()
    // the watermark is inclusive: the last instant of the previous run comes again, harmlessly
    assert.ok(
      changed.includes(`${first![0]}|Active`) &&
        changed.includes(`${second![0]}|Inactive`) &&
        changed.includes('Brand_new|Active'),
    )
    await synchronise(t, token, `${V1}/reference-data/labour-force-status`, store)
    assert.deepEqual(currentOf(store), await heldCurrent('labour-force-status'))
  })

  it('watermark: a change committed while a consumer is paging is not skipped, even one that moves a record already paged past', async () => {
    const store = { watermark: FULL, records: new Map<string, SyncedRecord>() }
    const pageSize = 5
    let changed = false
    await synchronise(t, token, `${V1}/classification?classification=language`, store, pageSize, async (page) => {
      if (page !== 2 || changed) return
      changed = true
      // During the run: rename a record the consumer already received, end-date one, add one.
      const held = (await heldCurrent('language')).map((line) => line.split('|')).filter(([, , s]) => s === 'Active')
      const [renamed, removed, ...rest] = held
      const rows = [
        ...rest.map(([c, d]) => `${c}\t${d}`),
        `${renamed![0]}\t${renamed![1]} (new name)`,
        '9999\tA language added mid-run',
      ]
      void removed
      await loadRelease(
        t.service.database.db,
        'language',
        parseReleaseFile(`code\tdescription\n${rows.join('\n')}\n`, 'x.tsv'),
      )
    })
    assert.ok(changed)
    await synchronise(t, token, `${V1}/classification?classification=language`, store, pageSize) // the next run, from the stored watermark
    assert.deepEqual(currentOf(store), await heldCurrent('language'))
  })

  it('watermark: changes stamped in the same instant are all delivered even when a page boundary splits them', async () => {
    const db = t.service.database.db
    const rows = Array.from({ length: 12 }, (_, i) => `S${String(i).padStart(2, '0')}\tSame instant ${i}`)
    const store = { watermark: FULL, records: new Map<string, SyncedRecord>() }
    await synchronise(t, token, `${V1}/reference-data/school-type`, store, 5)
    await loadRelease(db, 'school-type', parseReleaseFile(`code\tdescription\n${rows.join('\n')}\n`, 'x.tsv'))
    // A consumer that stops after one page (a failed run) keeps its old watermark and retries.
    const firstPage = await call(
      t.baseUrl,
      'GET',
      `${V1}/reference-data/school-type?changedSince=${encodeURIComponent(store.watermark)}&PageSize=5`,
      { token },
    )
    assert.equal(firstPage.json.results.length, 5)
    await synchronise(t, token, `${V1}/reference-data/school-type`, store, 5)
    assert.deepEqual(currentOf(store), await heldCurrent('school-type'))
  })

  it('repeating a request is safe: the same answer, no new versions', async () => {
    const path = `${V1}/reference-data/gender?changedSince=${FULL}`
    const first = await call(t.baseUrl, 'GET', path, { token })
    const second = await call(t.baseUrl, 'GET', path, { token })
    assert.deepEqual(second.json, first.json)
  })

  it('a page the service has answered before is answered afresh once a release changes the dataset (page cache)', async () => {
    const db = t.service.database.db
    const path = `${V1}/reference-data/school-type?changedSince=${FULL}&PageSize=500`
    const before = await call(t.baseUrl, 'GET', path, { token })
    assert.deepEqual((await call(t.baseUrl, 'GET', path, { token })).json, before.json) // served again, unchanged
    const held = await db
      .selectFrom('reference_record_version')
      .select(['code', 'description'])
      .where('dataset', '=', 'school-type')
      .where('is_current', '=', true)
      .execute()
    const renamed = held[0]!
    await loadRelease(
      db,
      'school-type',
      held.map((r) => ({
        code: r.code,
        description: r.code === renamed.code ? `${r.description} (renamed)` : r.description,
        avetmissCode: null,
        businessEffectiveFrom: null,
        businessEffectiveTo: null,
      })),
    )
    const after = await call(t.baseUrl, 'GET', path, { token })
    assert.equal(after.status, 200)
    assert.ok(after.json.numberOfResults > before.json.numberOfResults, 'the new versions are counted')
    const newest = after.json.results.filter((r: SyncedRecord) => r.code === renamed.code).at(-1)
    assert.equal(newest.description, `${renamed.description} (renamed)`)
  })

  it('paging to the end without assuming a page count', async () => {
    const store = { watermark: FULL, records: new Map<string, SyncedRecord>() }
    const delivered = await synchronise(t, token, `${V1}/classification?classification=country`, store, 37)
    const total = (
      await call(t.baseUrl, 'GET', `${V1}/classification?classification=country&changedSince=${FULL}&PageSize=1`, {
        token,
      })
    ).json.numberOfResults
    assert.equal(delivered, total)
  })

  it('the lookup rules use: active codes valid, inactive and unknown not, refreshed after a release', async () => {
    const db = t.service.database.db
    const lookup = createReferenceLookup(db)
    await lookup.refresh()
    assert.equal(lookup.isValid('gender', 'Female'), true)
    assert.equal(lookup.isValid('gender', 'Unknown_word'), false)
    await loadRelease(
      db,
      'predominant-delivery-mode',
      parseReleaseFile('code\tdescription\tbusinessEffectiveFrom\nInternal\tInternal delivery\t2027-01-01\n', 'x.tsv'),
    )
    assert.equal(lookup.isValid('predominant-delivery-mode', 'External'), true, 'not refreshed yet')
    await lookup.refresh()
    assert.equal(lookup.isValid('predominant-delivery-mode', 'External'), false, 'end-dated by the release')
    assert.equal(lookup.isValid('predominant-delivery-mode', 'Internal', '2026-12-31'), false, 'not yet in force')
    assert.equal(lookup.isValid('predominant-delivery-mode', 'Internal', '2027-01-01'), true)
  })
})
