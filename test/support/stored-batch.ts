// A batch as the service would hold it, without a service: for tests of what looks at one record at a
// time (record rules). Each upload is checked as the upload route checks a body (the string rules,
// then the resource's schema with the service's Ajv settings), and a refused one fails the test; the
// last upload of a UID wins; the records come in the order validation reads them. The reference data
// is what a new service holds: the shipped seed.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { FieldError } from '../../src/platform/http/problem.ts'
import { checkStrings } from '../../src/platform/schema/strings.ts'
import { createAjv } from '../../src/platform/schema/ajv.ts'
import { datasets, type ReferenceLookup } from '../../src/modules/reference-data/index.ts'
import { parseReleaseFile, type ReleaseRecord } from '../../src/modules/reference-data/release-file.ts'
import type { RecordChunkRow } from '../../src/modules/batches/index.ts'
import { resourceDefinitions } from '../../src/modules/resources/index.ts'
import type { Upload } from './reporting.ts'

const ajv = createAjv(false)
const uploadRoutes = new Map(
  resourceDefinitions.map((definition) => [
    definition.segment as string,
    { ...definition, validate: ajv.compile(definition.schema) },
  ]),
)

/** The records a batch of these uploads holds, by resource type and UID (validation's reading order). */
export function storedBatch(uploads: Upload[]): RecordChunkRow[] {
  const records = new Map<string, RecordChunkRow>()
  for (const upload of uploads) {
    const record = stored(upload)
    records.set(`${record.resource_type} ${record.resource_uid}`, record)
  }
  return [...records.values()].sort((a, b) =>
    a.resource_type !== b.resource_type
      ? a.resource_type < b.resource_type
        ? -1
        : 1
      : a.resource_uid < b.resource_uid
        ? -1
        : 1,
  )
}

/** An upload the service accepts, as it is stored. */
function stored({ segment, body }: Upload): RecordChunkRow {
  const route = uploadRoutes.get(segment)
  assert.ok(route, `no upload route for ${segment}`)
  const failures: FieldError[] = []
  const parsed = checkStrings(JSON.parse(JSON.stringify(body)), route.schema as never, '$', failures)
  if (!route.validate(parsed))
    failures.push(
      ...(route.validate.errors ?? []).map((e) => ({ accessPath: e.instancePath, message: `${e.message}` })),
    )
  assert.deepEqual(failures, [], `the ${segment} upload is refused`)
  const record = parsed as Record<string, unknown>
  return {
    resource_type: route.resourceType,
    resource_uid: String(record[route.uidField]),
    change_tracking_identifier:
      typeof record.changeTrackingIdentifier === 'string' ? record.changeTrackingIdentifier : null,
    body: record,
  }
}

/** The reference data of a new service: every record of the shipped seed, Active, in force as dated. */
export function seededReference(): ReferenceLookup {
  const seed = new Map<string, Map<string, ReleaseRecord>>(
    datasets.map(({ name, seedFile }) => {
      const url = new URL(`../../src/modules/reference-data/seed/${seedFile}`, import.meta.url)
      return [
        name,
        new Map(parseReleaseFile(readFileSync(url, 'utf8'), seedFile).map((record) => [record.code, record])),
      ]
    }),
  )
  return {
    refresh: async () => {},
    isValid(dataset, code, onDate) {
      const record = seed.get(dataset)?.get(code)
      if (!record) return false
      return (
        onDate === undefined ||
        ((!record.businessEffectiveFrom || record.businessEffectiveFrom <= onDate) &&
          (!record.businessEffectiveTo || onDate <= record.businessEffectiveTo))
      )
    },
  }
}
