// `npm run openapi:document`: writes openapi.json at the repository root, the OpenAPI description the
// service serves, for vendors who generate clients (.NET, Java...) from a file rather than from a
// running service. test/openapi-document.test.ts fails when the committed file differs from what the
// service serves. Only the server URL differs: the file names a local service (npm start).
import { writeFile } from 'node:fs/promises'

type Json = any

export const PUBLISHED_DOCUMENT_FILE = new URL('../openapi.json', import.meta.url)

export function publishedDocumentText(served: Json): string {
  const document = {
    ...served,
    servers: [
      {
        url: 'http://localhost:8080',
        description: "a local service started with npm start; use your deployment's base URL",
      },
    ],
  }
  return `${JSON.stringify(document, null, 2)}\n`
}

if (import.meta.main) {
  const { startTestService } = await import('../test/support/test-service.ts')
  const service = await startTestService()
  try {
    const served = await (await fetch(`${service.baseUrl}/openapi.json`)).json()
    const text = publishedDocumentText(served)
    await writeFile(PUBLISHED_DOCUMENT_FILE, text)
    console.log(`wrote ${PUBLISHED_DOCUMENT_FILE.pathname} (${Buffer.byteLength(text)} bytes)`)
  } finally {
    await service.close()
  }
}
