// Responses are written without warnings about their schemas: Fastify's response serializer checks a
// value against a schema where a response has alternatives, with an Ajv of its own, which did not know
// the service's formats (uuid-v4, utc-date-time) and warned in strict mode. Every first answer of such
// a route printed lines to stderr (hundreds in a CI log, burying what mattered) and chose among the
// alternatives without the formats. src/platform/schema/ajv.ts, SERIALIZER_AJV_OPTIONS.
import { describe, it, mock } from 'node:test'
import assert from 'node:assert/strict'
import { resourceTypes, segmentOf } from '../src/domain/resource-types.ts'
import { minimalUnitRecord, Reporter, startTestService, V1 } from './support/index.ts'

describe('responses are written without warnings about their schemas', () => {
  it("a batch's records of every resource type, and every held-records page, answer 200 and Ajv warns of nothing", async () => {
    const warnings: string[] = []
    const warn = mock.method(console, 'warn', (...args: unknown[]) => {
      warnings.push(args.map(String).join(' '))
    })
    const t = await startTestService()
    try {
      const reporter = new Reporter(t.baseUrl, await t.token('demo-rto-1'))
      const batch = await reporter.submitted(await minimalUnitRecord())
      for (const resourceType of resourceTypes) {
        const listed = await reporter.request('GET', reporter.batchPath(batch, `/${segmentOf(resourceType)}`))
        assert.equal(listed.status, 200, listed.text)
        assert.ok(listed.json.results.length > 0, `${resourceType}: the minimal unit record has one`)
        const held = await reporter.request('GET', `${V1}/held-records?resourceType=${resourceType}`)
        assert.equal(held.status, 200, held.text)
        assert.ok(held.json.results.length > 0, `${resourceType}: the minimal unit record holds one`)
      }
      assert.deepEqual(
        warnings.filter((line) => /unknown format|strict mode/.test(line)),
        [],
      )
    } finally {
      warn.mock.restore()
      await t.close()
    }
  })
})
