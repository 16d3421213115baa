// The service's own check of an upload body (its string rules, then the resource's schema with the
// service's Ajv settings), so that the mapping's records are held to the contract itself rather than
// to the package's restatement of it. Test-only: the package does not depend on the service.
import type { FieldError } from '../../../../src/platform/http/problem.ts'
import { checkStrings } from '../../../../src/platform/schema/strings.ts'
import { createAjv } from '../../../../src/platform/schema/ajv.ts'
import { resourceDefinitions } from '../../../../src/modules/resources/index.ts'

const ajv = createAjv(false)
const validators = new Map(
  resourceDefinitions.map((definition) => [
    definition.resourceType as string,
    { definition, validate: ajv.compile(definition.schema) },
  ]),
)

/** What the upload of `body` as `resourceType` would refuse: nothing for a body the service accepts. */
export function uploadFailures(resourceType: string, body: unknown): FieldError[] {
  const found = validators.get(resourceType)
  if (!found) return [{ accessPath: '$', message: `no resource type ${resourceType}` }]
  const failures: FieldError[] = []
  const checked = checkStrings(structuredClone(body), found.definition.schema as never, '$', failures)
  if (!found.validate(checked)) {
    failures.push(
      ...(found.validate.errors ?? []).map((e) => ({ accessPath: e.instancePath, message: `${e.message}` })),
    )
  }
  return failures
}
