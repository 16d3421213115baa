// The eight resources inside a batch (spec: Resource endpoints inside a batch; Resources and their
// fields; Errors 400): upload, replace, read, list, delete, child replacement, structural rules,
// RTO isolation, and fuzzed bodies that must never cause a 5xx or a partial record.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { call, loadExample, startTestService, V1, type TestService } from './support/index.ts'
import { resourceDefinitions } from '../src/modules/resources/index.ts'

const exampleFor: Record<string, string> = {
  student: 'student',
  deliverylocation: 'deliverylocation',
  program: 'program',
  programoffering: 'programoffering',
  programenrolment: 'programenrolment',
  subject: 'subject',
  subjectoffering: 'subjectoffering',
  subjectenrolment: 'subjectenrolment',
}

describe('resources inside a batch', () => {
  let t: TestService
  let rto1: string
  let rto2: string
  before(async () => {
    t = await startTestService()
    rto1 = await t.token('demo-rto-1')
    rto2 = await t.token('demo-rto-2')
  })
  after(() => t.close())

  const newBatch = async () =>
    (await call(t.baseUrl, 'POST', `${V1}/NSW/transaction-batch`, { token: rto1 })).json.transactionBatchToken as string
  const path = (batch: string, segment: string, uid?: string) =>
    `${V1}/NSW/transaction-batch/${batch}/${segment}${uid ? `/${uid}` : ''}`

  for (const definition of resourceDefinitions) {
    const { segment, resourceType, uidField } = definition

    describe(resourceType, () => {
      it(`${resourceType}: upload creates (201), re-upload replaces (200), both echo the changeTrackingIdentifier`, async () => {
        const batch = await newBatch()
        const body = await loadExample(exampleFor[segment]!)
        const created = await call(t.baseUrl, 'POST', path(batch, segment), { token: rto1, json: body })
        assert.equal(created.status, 201, created.text)
        assert.deepEqual(created.json, {
          resourceType,
          resourceUID: body[uidField],
          changeTrackingIdentifier: body.changeTrackingIdentifier ?? null,
          transactionBatchToken: batch,
          hasBlockingValidationFailures: false,
          hasNonBlockingValidationFailures: false,
        })
        const replaced = await call(t.baseUrl, 'POST', path(batch, segment), {
          token: rto1,
          json: { ...body, changeTrackingIdentifier: 'v2 of this record' },
        })
        assert.equal(replaced.status, 200)
        assert.equal(replaced.json.changeTrackingIdentifier, 'v2 of this record')
        const read = await call(t.baseUrl, 'GET', path(batch, segment, String(body[uidField])), { token: rto1 })
        assert.equal(read.status, 200)
        assert.deepEqual(read.json, { ...body, changeTrackingIdentifier: 'v2 of this record' })
      })

      it(`${resourceType}: list pages the batch's records by UID; delete removes one; a second delete is 404`, async () => {
        const batch = await newBatch()
        const body = await loadExample(exampleFor[segment]!)
        const uids = [
          '0a000000-0000-4000-8000-000000000001',
          '0b000000-0000-4000-8000-000000000002',
          '0c000000-0000-4000-8000-000000000003',
        ]
        for (const uid of uids)
          assert.equal(
            (await call(t.baseUrl, 'POST', path(batch, segment), { token: rto1, json: { ...body, [uidField]: uid } }))
              .status,
            201,
          )
        const page1 = await call(t.baseUrl, 'GET', `${path(batch, segment)}?pageSize=2`, { token: rto1 })
        assert.deepEqual(
          {
            n: page1.json.numberOfResults,
            pages: page1.json.numberOfPages,
            uids: page1.json.results.map((r: Record<string, string>) => r[uidField]),
          },
          { n: 3, pages: 2, uids: uids.slice(0, 2) },
        )
        const page2 = await call(t.baseUrl, 'GET', `${path(batch, segment)}?pageSize=2&pageNumber=2`, { token: rto1 })
        assert.deepEqual(
          page2.json.results.map((r: Record<string, string>) => r[uidField]),
          [uids[2]],
        )
        assert.equal((await call(t.baseUrl, 'DELETE', path(batch, segment, uids[1]), { token: rto1 })).status, 204)
        assert.equal((await call(t.baseUrl, 'GET', path(batch, segment, uids[1]), { token: rto1 })).status, 404)
        assert.equal((await call(t.baseUrl, 'DELETE', path(batch, segment, uids[1]), { token: rto1 })).status, 404)
        assert.equal((await call(t.baseUrl, 'GET', path(batch, segment), { token: rto1 })).json.numberOfResults, 2)
      })

      it(`${resourceType}: PUT at a UID uploads; a body UID differing from the path UID is 400 and stores nothing`, async () => {
        const batch = await newBatch()
        const body = await loadExample(exampleFor[segment]!)
        const uid = String(body[uidField])
        assert.equal((await call(t.baseUrl, 'PUT', path(batch, segment, uid), { token: rto1, json: body })).status, 201)
        const other = '0d000000-0000-4000-8000-000000000004'
        const mismatch = await call(t.baseUrl, 'PUT', path(batch, segment, other), { token: rto1, json: body })
        assert.equal(mismatch.status, 400)
        assert.equal(mismatch.json.errors[0].accessPath, `$.${uidField}`)
        assert.equal((await call(t.baseUrl, 'GET', path(batch, segment, other), { token: rto1 })).status, 404)
      })

      it(`${resourceType}: structural rules, each failing case 400 with its access path, and the batch's earlier version untouched`, async () => {
        const batch = await newBatch()
        const body = await loadExample(exampleFor[segment]!)
        const uid = String(body[uidField])
        assert.equal(
          (
            await call(t.baseUrl, 'POST', path(batch, segment), {
              token: rto1,
              json: { ...body, changeTrackingIdentifier: 'original' },
            })
          ).status,
          201,
        )
        const { [uidField]: _uid, ...withoutUid } = body
        const failing: [string, unknown, string][] = [
          ['a missing UID', withoutUid, `$.${uidField}`],
          ['a UID that is not version 4', { ...body, [uidField]: uid.replace(/^(.{14})4/, '$11') }, `$.${uidField}`],
          ['an unknown property', { ...body, favouriteColour: 'blue' }, '$.favouriteColour'],
          ['a leading space', { ...body, changeTrackingIdentifier: ' v3' }, '$.changeTrackingIdentifier'],
          ['a tab inside a value', { ...body, changeTrackingIdentifier: 'v\t3' }, '$.changeTrackingIdentifier'],
          ['isVoided without voidedReason', { ...body, isVoided: true }, '$.voidedReason'],
          ['a voidedReason outside the list', { ...body, isVoided: true, voidedReason: 'mistake' }, '$.voidedReason'],
          ['a string where a boolean belongs', { ...body, isVoided: 'true' }, '$.isVoided'],
        ]
        for (const [name, json, accessPath] of failing) {
          const response = await call(t.baseUrl, 'POST', path(batch, segment), { token: rto1, json })
          assert.equal(response.status, 400, name)
          assert.ok(
            response.json.errors.some((e: { accessPath: string }) => e.accessPath === accessPath),
            `${name}: ${JSON.stringify(response.json.errors)}`,
          )
        }
        const read = await call(t.baseUrl, 'GET', path(batch, segment, uid), { token: rto1 })
        assert.equal(read.json.changeTrackingIdentifier, 'original')
        const passing = await call(t.baseUrl, 'POST', path(batch, segment), {
          token: rto1,
          json: { ...body, isVoided: true, voidedReason: 'remove_duplicate_record' },
        })
        assert.equal(passing.status, 200, passing.text)
      })

      it(`${resourceType}: another RTO's client sees 404 for the batch's records`, async () => {
        const batch = await newBatch()
        const body = await loadExample(exampleFor[segment]!)
        await call(t.baseUrl, 'POST', path(batch, segment), { token: rto1, json: body })
        for (const [method, uid, json] of [
          ['GET', undefined, undefined],
          ['GET', String(body[uidField]), undefined],
          ['DELETE', String(body[uidField]), undefined],
          ['POST', undefined, body],
          ['PUT', String(body[uidField]), body],
        ] as const) {
          const response = await call(t.baseUrl, method, path(batch, segment, uid), {
            token: rto2,
            ...(json ? { json } : {}),
          })
          assert.equal(response.status, 404, `${method} ${uid ?? ''}`)
        }
        assert.equal(
          (await call(t.baseUrl, 'GET', path(batch, segment, String(body[uidField])), { token: rto1 })).status,
          200,
        )
      })
    })
  }

  it('Child objects: a re-upload replaces all child objects; one left out is deleted', async () => {
    const batch = await newBatch()
    const student = await loadExample('student')
    assert.ok(student.postalAddress && student.priorEducationalAchievements)
    await call(t.baseUrl, 'POST', path(batch, 'student'), { token: rto1, json: student })
    const { postalAddress: _postal, ...withoutPostal } = student
    const replacement = {
      ...withoutPostal,
      priorEducationalAchievements: [{ priorEducationalAchievement: 'Diploma', recognition: 'Australian' }],
    }
    assert.equal(
      (await call(t.baseUrl, 'POST', path(batch, 'student'), { token: rto1, json: replacement })).status,
      200,
    )
    const read = (await call(t.baseUrl, 'GET', path(batch, 'student', String(student.studentUID)), { token: rto1 }))
      .json
    assert.equal(read.postalAddress, undefined)
    assert.deepEqual(read.priorEducationalAchievements, replacement.priorEducationalAchievements)
  })

  it('Enrolment lifecycle: the whole history travels with every upload, and a re-upload replaces it', async () => {
    const batch = await newBatch()
    const enrolment = await loadExample('subjectenrolment')
    await call(t.baseUrl, 'POST', path(batch, 'subjectenrolment'), { token: rto1, json: enrolment })
    const lifecycle = [
      ...(enrolment.lifecycle as object[]),
      { studentStatus: 'Cancelled', studentActivityDate: '2026-11-02', studentStatusReason: 'Formal_withdrawal' },
    ]
    await call(t.baseUrl, 'POST', path(batch, 'subjectenrolment'), { token: rto1, json: { ...enrolment, lifecycle } })
    const read = (
      await call(t.baseUrl, 'GET', path(batch, 'subjectenrolment', String(enrolment.subjectEnrolmentUID)), {
        token: rto1,
      })
    ).json
    assert.deepEqual(read.lifecycle, lifecycle)
  })

  it('No_value is accepted where a list contains it', async () => {
    const batch = await newBatch()
    const student = await loadExample('student')
    const response = await call(t.baseUrl, 'POST', path(batch, 'student'), {
      token: rto1,
      json: { ...student, gender: 'No_value', indigenousStatus: 'No_value' },
    })
    assert.equal(response.status, 201, response.text)
  })

  it('the minimal unit record uploads cleanly, in any order, into one batch', async () => {
    const batch = await newBatch()
    const files = [
      'subjectenrolment-in-program',
      'programenrolment',
      'subjectenrolment',
      'subjectoffering',
      'programoffering',
      'program',
      'subject',
      'deliverylocation',
      'student',
    ]
    for (const file of files) {
      const segment = file === 'subjectenrolment-in-program' ? 'subjectenrolment' : file
      const response = await call(t.baseUrl, 'POST', path(batch, segment), {
        token: rto1,
        json: await loadExample(file),
      })
      assert.equal(response.status, 201, `${file}: ${response.text}`)
    }
    const detail = (await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}`, { token: rto1 })).json
    assert.equal(detail.totalRecords, 9)
    assert.equal(detail.recordCounts.SubjectEnrolment, 2)
  })

  it('fuzzing: arbitrary JSON bodies never give a 5xx and never store a record', async () => {
    const batch = await newBatch()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...resourceDefinitions.map((d) => d.segment)),
        fc.jsonValue({ maxDepth: 4 }),
        async (segment, value) => {
          const response = await call(t.baseUrl, 'POST', path(batch, segment), {
            token: rto1,
            body: JSON.stringify(value),
            headers: { 'content-type': 'application/json' },
          })
          assert.ok(response.status < 500, `${response.status} ${response.text}`)
          assert.match(response.headers.get('content-type') ?? '', /problem\+json/)
        },
      ),
      { numRuns: 150, seed: 20261122 },
    )
    assert.equal(
      (await call(t.baseUrl, 'GET', `${V1}/NSW/transaction-batch/${batch}`, { token: rto1 })).json.totalRecords,
      0,
    )
  })

  it('fuzzing: mutated valid payloads are either stored whole or refused with nothing changed', async () => {
    const batch = await newBatch()
    const examples = await Promise.all(
      resourceDefinitions.map(async (d) => ({ d, body: await loadExample(exampleFor[d.segment]!) })),
    )
    for (const { d, body } of examples)
      await call(t.baseUrl, 'POST', path(batch, d.segment), {
        token: rto1,
        json: { ...body, changeTrackingIdentifier: 'baseline' },
      })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...examples),
        fc.nat(),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.constant(undefined)),
        async ({ d, body }, pick, replacement) => {
          const keys = Object.keys(body).filter((key) => key !== d.uidField)
          const key = keys[pick % keys.length]!
          const mutated = { ...body, changeTrackingIdentifier: 'mutated', [key]: replacement }
          if (replacement === undefined) delete mutated[key]
          const response = await call(t.baseUrl, 'POST', path(batch, d.segment), { token: rto1, json: mutated })
          assert.ok([200, 400].includes(response.status), `${response.status} ${response.text}`)
          const stored = (
            await call(t.baseUrl, 'GET', path(batch, d.segment, String(body[d.uidField])), { token: rto1 })
          ).json
          if (response.status === 400) {
            assert.notEqual(stored.changeTrackingIdentifier, 'mutated', 'a refused upload changed the stored record')
          } else {
            const expected = JSON.parse(JSON.stringify(mutated))
            if (replacement === null) delete expected[key] // null on an optional field is the field left out
            assert.deepEqual(stored, expected)
            // put the baseline back so the next refused upload can be told apart
            await call(t.baseUrl, 'POST', path(batch, d.segment), {
              token: rto1,
              json: { ...body, changeTrackingIdentifier: 'baseline' },
            })
          }
        },
      ),
      { numRuns: 150, seed: 20261122 },
    )
  })
})

describe("the README's example", () => {
  it('Standard workflows 1 and 2: npm run example:submit uploads the minimal unit record, validates it with no blocking result and submits it', async () => {
    const { execFile } = await import('node:child_process')
    const { promisify } = await import('node:util')
    const t = await startTestService()
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['scripts/example-submit.ts'], {
        env: { ...process.env, VETRS_URL: t.baseUrl },
      })
      assert.match(stdout, /^transaction batch \S+ \(NSW, NotSubmitted\)$/m)
      assert.match(stdout, /^9 records in the batch/m)
      assert.match(stdout, /^Submitted at \S+: 9 records are now held\.$/m)
      assert.doesNotMatch(stdout, /Error/)
      const rows = await t.service.database.db
        .selectFrom('held_record')
        .select('resource_type')
        .where('is_current', '=', true)
        .execute()
      assert.equal(rows.length, 9)
    } finally {
      await t.close()
    }
  })

  it('every link of the README and of docs/ resolves: the file exists, and an anchor names one of its headings', () => {
    const files = [
      'README.md',
      ...readdirSync('docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f)),
    ]
    const broken: string[] = []
    for (const file of files) {
      for (const target of markdownLinks(readFileSync(file, 'utf8'))) {
        if (/^[a-z]+:/i.test(target)) continue // https:, mailto:
        const [path = '', anchor] = target.split('#')
        const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path))
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no ${resolved})`)
        else if (anchor && resolved.endsWith('.md') && !headingSlugs(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`)
      }
    }
    assert.deepEqual(broken, [])
  })

  it("the README's five-minute start comes first, names only npm scripts that exist, and points at nothing outside the repository", () => {
    const readme = readFileSync('README.md', 'utf8')
    const scripts = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).scripts)
    const used = new Set([...readme.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1]!))
    for (const name of used) assert.ok(scripts.includes(name), `npm run ${name} is a script`)
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1])
    assert.deepEqual(headings.slice(0, 2), ['Contents', 'Five-minute start'])
    const start = readme.slice(
      readme.indexOf('## Five-minute start'),
      readme.indexOf('\n## ', readme.indexOf('## Five-minute start') + 5),
    )
    for (const step of [
      'npm i -g --prefix ~/.node24 node@24',
      'npm ci && npm start',
      'npm run example:submit',
      'staff-90001',
    ])
      assert.ok(start.includes(step), `the five-minute start has ${step}`)
    assert.doesNotMatch(readme, /\.\.\/shared\/|\bissue \d+|later issue/i)
  })
})

/** The targets of the inline links of a Markdown text, outside fenced code blocks and code spans. */
function markdownLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
}

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const slugs = new Set<string>()
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '')
  for (const [, text] of prose.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    slugs.add(count === 0 ? base : `${base}-${count}`)
  }
  return slugs
}
