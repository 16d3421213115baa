// The client cannot drift from the service: its types are generated from the OpenAPI description the
// service serves, and this test fails when a fresh generation differs from the committed file.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { clientTypesFrom, GENERATED_TYPES_FILE } from '../../../scripts/client-types.ts'
import { startTestService, type TestService } from './support/service.ts'

describe('client types and the served OpenAPI description', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  it('packages/client/src/generated/openapi.ts is what the served OpenAPI description generates (run npm run client:types after changing a route)', async () => {
    const served = await (await fetch(`${t.baseUrl}/openapi.json`)).json()
    const fresh = await clientTypesFrom(served)
    const committed = await readFile(GENERATED_TYPES_FILE, 'utf8')
    if (fresh !== committed) {
      const freshLines = fresh.split('\n')
      const line = committed.split('\n').findIndex((text, i) => text !== freshLines[i])
      assert.fail(
        `the client's types differ from the served OpenAPI description from line ${line + 1} (${JSON.stringify(freshLines[line])}); run npm run client:types`,
      )
    }
  })

  it('every schema the client names is served: a schema renamed or removed breaks the generation', async () => {
    const served = await (await fetch(`${t.baseUrl}/openapi.json`)).json()
    delete served.components.schemas.Student
    await assert.rejects(clientTypesFrom(served), /no schema Student/)
  })
})
