// TypeScript types for an OpenAPI document, as openapi-typescript 7 writes them: the `paths` and
// `components` that openapi-fetch (and other clients of that family) are typed by. openapi-typescript
// 7 builds its output with the TypeScript 5 compiler API, which TypeScript 7 no longer has, so it
// lives in this workspace with its own TypeScript 5 (docs/decisions.md, "Generated clients").
import openapiTS, { astToString } from 'openapi-typescript'

export async function typesFor(document: object): Promise<string> {
  // The document as a JSON string: openapi-typescript then neither fetches nor reads files.
  const nodes = await openapiTS(JSON.stringify(document))
  return astToString(nodes)
}
