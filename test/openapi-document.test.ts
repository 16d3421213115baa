// The published interface description (issue 17, "What trips an SMS developer"): the OpenAPI
// document names its shared schemas and responses once and refers to them, says how list query
// parameters are sent and what each 404 means, is small enough to fetch and compressed when the
// client accepts it, and is committed at the repository root as served.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { publishedDocumentText, PUBLISHED_DOCUMENT_FILE } from '../scripts/openapi-document.ts'
import { loadExample, startTestService, V1, type TestService } from './support/index.ts'
import { resourceTypes } from '../src/domain/resource-types.ts'
import { REPORTING_PERIOD_PATTERN, utcInstant } from '../src/domain/calendar.ts'

const BATCH = '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}'
const RESOURCES: readonly string[] = resourceTypes

/** GET with node:http, so the body is seen exactly as sent (fetch would decompress it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      )
      response.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}

describe('the OpenAPI document', () => {
  let t: TestService
  let spec: any
  let plain: Buffer
  before(async () => {
    t = await startTestService()
    plain = (await rawGet(`${t.baseUrl}/openapi.json`, {})).body
    spec = JSON.parse(plain.toString('utf8'))
  })
  after(() => t.close())

  it('names one schema per resource type under components.schemas, referenced by its upload body, its read response and its page', () => {
    for (const name of RESOURCES) {
      const segment = name.toLowerCase()
      const uidField = `${name[0]!.toLowerCase()}${name.slice(1)}UID`
      assert.equal(spec.components.schemas[name]?.type, 'object', `components.schemas.${name}`)
      const ref = { $ref: `#/components/schemas/${name}` }
      assert.deepEqual(
        spec.paths[`${BATCH}/${segment}`].post.requestBody.content['application/json'].schema,
        ref,
        `upload of ${name}`,
      )
      assert.deepEqual(
        spec.paths[`${BATCH}/${segment}/{${uidField}}`].get.responses['200'].content['application/json'].schema,
        ref,
        `read of ${name}`,
      )
      assert.deepEqual(spec.paths[`${BATCH}/${segment}`].get.responses['200'].content['application/json'].schema, {
        $ref: `#/components/schemas/${name}Page`,
      })
      assert.deepEqual(spec.components.schemas[`${name}Page`].properties.results.items, ref)
    }
    assert.equal(JSON.stringify(spec).split('"familyName":{').length - 1, 1, 'the Student schema is written once')
  })

  it('Errors: the problem body is one schema, ProblemDetails, and the standard problem responses are shared components', () => {
    assert.deepEqual(spec.components.schemas.ProblemDetails.properties.errors.items, {
      $ref: '#/components/schemas/FieldError',
    })
    const upload = spec.paths[`${BATCH}/student`].post.responses
    for (const [status, name] of [
      ['400', 'StructurallyInvalid'],
      ['401', 'Unauthenticated'],
      ['403', 'InsufficientScope'],
      ['413', 'PayloadTooLarge'],
      ['429', 'RateLimited'],
      ['503', 'ServiceUnavailable'],
    ]) {
      assert.deepEqual(upload[status!], { $ref: `#/components/responses/${name}` }, status)
      assert.deepEqual(spec.components.responses[name!].content['application/problem+json'].schema, {
        $ref: '#/components/schemas/ProblemDetails',
      })
    }
    const conflict = spec.paths[`${BATCH}/validate`].post.responses['409']
    assert.deepEqual(
      conflict.content['application/problem+json'].schema,
      { $ref: '#/components/schemas/ProblemDetails' },
      "an operation's own problem response refers to it too",
    )
    assert.match(conflict.description, /batch-submitted/)
  })

  it('every local $ref resolves', () => {
    const refs = new Set<string>()
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(collect)
        return
      }
      if (node === null || typeof node !== 'object') return
      const ref = (node as { $ref?: unknown }).$ref
      if (typeof ref === 'string') refs.add(ref)
      Object.values(node).forEach(collect)
    }
    collect(spec)
    assert.ok(refs.size > 40)
    for (const ref of refs) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce((node: any, part) => node?.[part], spec)
      assert.ok(ref.startsWith('#/') && target !== undefined, `${ref} resolves`)
    }
  })

  it('list query parameters are style form, explode true (the parameter repeated); parameters with a default are optional', () => {
    const lists: string[] = []
    for (const [path, methods] of Object.entries<any>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue
          if (parameter.schema.type === 'array') {
            lists.push(`${method} ${path} ${parameter.name}`)
            assert.deepEqual(
              [parameter.style, parameter.explode],
              ['form', true],
              `${method} ${path} ${parameter.name}`,
            )
            assert.match(parameter.description, /comma-separated/)
          }
          if ('default' in parameter.schema)
            assert.equal(parameter.required, false, `${method} ${path} ${parameter.name} has a default`)
        }
      }
    }
    assert.deepEqual(lists.sort(), [
      'get /vet-provider/v1/declaration declarationTypes',
      'get /vet-provider/v1/declaration reportingPeriodNumber',
      'get /vet-provider/v1/held-records resourceUID',
      'get /vet-provider/v1/search-by-period reportingPeriods',
    ])
    const search = spec.paths['/vet-provider/v1/search-by-period'].get.parameters.find(
      (p: any) => p.name === 'reportingPeriods',
    )
    assert.deepEqual(
      [search.schema.maxItems, search.schema.uniqueItems, search.schema.items.pattern],
      [10, true, REPORTING_PERIOD_PATTERN],
    )
  })

  /** Every schema object in the document, with where it is. */
  const schemasIn = (node: unknown, where = '#', found: [string, any][] = []): [string, any][] => {
    if (Array.isArray(node)) for (const [i, item] of node.entries()) schemasIn(item, `${where}/${i}`, found)
    else if (node !== null && typeof node === 'object') {
      if ('format' in node || 'pattern' in node) found.push([where, node])
      for (const [key, value] of Object.entries(node)) schemasIn(value, `${where}/${key}`, found)
    }
    return found
  }

  it('Exactness: RTOAcceptanceOfDeclaration is const: true in every declaration request, not a boolean that must happen to be true', () => {
    for (const name of ['DeclarationRequest', 'PeriodDeclarationRequest']) {
      const property = spec.components.schemas[name].properties.RTOAcceptanceOfDeclaration
      assert.equal(property.const, true, name)
      assert.equal(property.enum, undefined, name)
    }
  })

  it('Exactness: defaults are schema defaults, not prose: reference-data PageNumber and PageSize default to 1 and 500, and no description states a default its schema lacks', () => {
    for (const path of ['/vet-provider/v1/reference-data/{dataset}', '/vet-provider/v1/classification']) {
      const parameters = spec.paths[path].get.parameters
      const byName = (name: string) => parameters.find((p: any) => p.name === name)
      assert.deepEqual([byName('PageNumber').schema.default, byName('PageSize').schema.default], [1, 500], path)
      assert.deepEqual([byName('PageNumber').required, byName('PageSize').required], [false, false], path)
    }
    for (const [path, methods] of Object.entries<any>(spec.paths))
      for (const [method, operation] of Object.entries<any>(methods)) {
        assert.doesNotMatch(operation.description ?? '', /\bdefaults? \d/, `${method} ${path}`)
        for (const parameter of operation.parameters ?? [])
          if (/\bdefault \d/.test(parameter.description ?? ''))
            assert.ok('default' in parameter.schema, `${method} ${path} ${parameter.name}: a default in prose only`)
      }
  })

  it('Exactness: the custom formats uuid-v4 and utc-date-time, and every date, carry a pattern that agrees with the format, so generated clients enforce them', () => {
    const found = schemasIn(spec).filter(([, schema]) => ['uuid-v4', 'utc-date-time', 'date'].includes(schema.format))
    const formats = new Set(found.map(([, schema]) => schema.format))
    assert.deepEqual([...formats].sort(), ['date', 'utc-date-time', 'uuid-v4'])
    const samples: Record<string, [string[], string[]]> = {
      'uuid-v4': [
        ['3f0c1f4e-6b9a-4c1e-9d2a-6c7b8e9f0a1b', '3F0C1F4E-6B9A-4C1E-9D2A-6C7B8E9F0A1B'],
        [
          '3f0c1f4e-6b9a-1c1e-9d2a-6c7b8e9f0a1b',
          '3f0c1f4e-6b9a-4c1e-7d2a-6c7b8e9f0a1b',
          '3f0c1f4e6b9a4c1e9d2a6c7b8e9f0a1b',
        ],
      ],
      'utc-date-time': [
        [
          '1901-01-01T00:00:00Z',
          '1901-01-01T00:00:00+00:00',
          '1901-01-01T00:00:00+0000',
          '2026-05-04T03:02:01.123456z',
          '19010101T000000Z',
        ],
        ['1901-01-01T00:00:00+10:00', '1901-01-01T00:00:00', '0000-01-01T00:00:00Z', '2026-05-04T24:00:00Z'],
      ],
      date: [
        ['1900-01-01', '9999-12-31', '2028-02-29'],
        ['0000-01-01', '1899-12-31', '2026-13-01', '10000-01-01'],
      ],
    }
    for (const [where, schema] of found) {
      assert.equal(typeof schema.pattern, 'string', `${where} (${schema.format}) has no pattern`)
      const pattern = new RegExp(schema.pattern)
      const [good, bad] = samples[schema.format]!
      for (const value of good) assert.ok(pattern.test(value), `${where}: ${value} should match`)
      for (const value of bad) assert.ok(!pattern.test(value), `${where}: ${value} should not match`)
    }
    // The pattern is never stricter than the service: each form utcInstant takes, the pattern takes.
    const instant = found.find(([, schema]) => schema.format === 'utc-date-time')![1]
    for (const value of samples['utc-date-time']![0]) assert.ok(utcInstant(value), value)
    assert.ok(new RegExp(instant.pattern).test('2026-05-04T03:02Z'))
  })

  it('Limits: every POST and DELETE declares 400, 413 (decompressed size) and 415, the operations that take no body too, as they answer', async () => {
    let withoutBody = 0
    for (const [path, methods] of Object.entries<any>(spec.paths))
      for (const [method, operation] of Object.entries<any>(methods)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue
        if (!operation.requestBody) withoutBody++
        for (const status of ['400', '413', '415'])
          assert.ok(operation.responses[status], `${method} ${path} declares no ${status}`)
      }
    assert.ok(withoutBody >= 20, `${withoutBody} operations without a body`)
    // What they declare is what they answer: creating a batch takes no body.
    const token = await t.token()
    const create = (headers: Record<string, string>, body: Uint8Array<ArrayBuffer> | string) =>
      fetch(`${t.baseUrl}${V1}/NSW/transaction-batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...headers },
        body,
      }).then(async (response) => ({ status: response.status, json: (await response.json()) as any }))
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20)))
    const tooLarge = await create({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb)
    assert.deepEqual([tooLarge.status, tooLarge.json.errorNumber], [413, 'BRTS90400'], JSON.stringify(tooLarge.json))
    const wrongType = await create({ 'content-type': 'text/csv' }, 'a,b\n')
    assert.equal(wrongType.status, 415, JSON.stringify(wrongType.json))
    const notEmpty = await create({ 'content-type': 'application/json' }, '{"x":1}')
    assert.equal(notEmpty.status, 400, JSON.stringify(notEmpty.json))
  })

  it('Errors 404: the validation and assessment result operations say which problem type means no run yet and which no such batch', () => {
    for (const rest of ['/validate', '/failed-validation-results']) {
      const description = spec.paths[`${BATCH}${rest}`].get.responses['404'].description
      assert.match(description, /\/problems\/not-found/, rest)
      assert.match(description, /\/problems\/no-validation-run/, rest)
    }
    const assessment =
      spec.paths['/vet-provider/v1/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/failed-validation-results']
        .get.responses['404']
    assert.match(assessment.description, /\/problems\/no-assessment-run/)
  })

  it('is small: under 400 KB as JSON and under 40 KB gzipped (it was 1.76 MB with every schema inlined)', () => {
    assert.ok(plain.length < 400_000, `${plain.length} bytes`)
    assert.ok(gzipSync(plain).length < 40_000, `${gzipSync(plain).length} bytes gzipped`)
  })

  it('responses are compressed as Accept-Encoding asks (gzip, br), with Vary: Accept-Encoding; uncompressed when not asked', async () => {
    const gzipped = await rawGet(`${t.baseUrl}/openapi.json`, { 'accept-encoding': 'gzip' })
    assert.equal(gzipped.headers['content-encoding'], 'gzip')
    assert.match(String(gzipped.headers.vary), /accept-encoding/i)
    assert.ok(gzipped.body.length < plain.length / 5, `${gzipped.body.length} bytes on the wire`)
    assert.deepEqual(gunzipSync(gzipped.body), plain)
    const brotli = await rawGet(`${t.baseUrl}/openapi.json`, { 'accept-encoding': 'br;q=1, gzip;q=0.5' })
    assert.equal(brotli.headers['content-encoding'], 'br')
    assert.deepEqual(brotliDecompressSync(brotli.body), plain)
    const identity = await rawGet(`${t.baseUrl}/openapi.json`, { 'accept-encoding': 'identity' })
    assert.equal(identity.headers['content-encoding'], undefined)
    assert.deepEqual(identity.body, plain)
    const small = await rawGet(`${t.baseUrl}/health/live`, { 'accept-encoding': 'gzip' })
    assert.equal(small.headers['content-encoding'], undefined, 'a body under 1 KiB is sent as it is')
  })

  it('Limits: a gzip-encoded upload is still decoded by the service (not twice), and its answer compressed when asked', async () => {
    const token = await t.token()
    const batch = await fetch(`${t.baseUrl}${V1}/NSW/transaction-batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    const { transactionBatchToken } = (await batch.json()) as { transactionBatchToken: string }
    const student = await loadExample('student')
    const response = await fetch(`${t.baseUrl}${V1}/NSW/transaction-batch/${transactionBatchToken}/student`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'accept-encoding': 'gzip',
      },
      body: gzipSync(JSON.stringify(student)),
    })
    assert.equal(response.status, 201, await response.clone().text())
    assert.equal(
      ((await response.json()) as { resourceUID: string }).resourceUID,
      (student as { studentUID: string }).studentUID,
    )
    const page = await rawGet(`${t.baseUrl}${V1}/NSW/transaction-batch/${transactionBatchToken}/student`, {
      authorization: `Bearer ${token}`,
      'accept-encoding': 'gzip',
    })
    assert.equal(page.status, 200)
    assert.equal(page.headers['content-encoding'], 'gzip', 'a page of records over 1 KiB is compressed')
    assert.equal(
      JSON.parse(gunzipSync(page.body).toString('utf8')).results[0].studentUID,
      (student as { studentUID: string }).studentUID,
    )
  })

  it('openapi.json at the repository root is the served document (run npm run openapi:document after changing a route)', async () => {
    const committed = await readFile(PUBLISHED_DOCUMENT_FILE, 'utf8').catch(() => '')
    const fresh = publishedDocumentText(spec)
    if (committed !== fresh) {
      const freshLines = fresh.split('\n')
      const line = committed.split('\n').findIndex((text, i) => text !== freshLines[i])
      assert.fail(
        `openapi.json differs from the served document from line ${line + 1} (${JSON.stringify(freshLines[line])}); run npm run openapi:document`,
      )
    }
  })
})
