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
      [10, true, '^\\d{4}0[1-4]$'],
    )
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
