// The structural check: the string rules (strings.ts), then the JSON Schema (ajv.ts), one value at a
// time. It knows nothing of HTTP: platform/http's request hook runs it on path, query and body, the bulk
// upload on each line, and modules on records that reach the service in another form (the NAT bridge's).
import type { ValidateFunction } from 'ajv'
import type { FieldError } from '../../domain/errors.ts'
import { createAjv, toFieldErrors } from './ajv.ts'
import { checkStrings } from './strings.ts'

/**
 * The structural check of one value against its schema: the string rules (which may trim enum values
 * and drop null optional fields, so the checked value is returned), then the schema, failures with
 * access paths from root. Bodies are not coerced; path and query text is. One check serves the
 * request hook and the bulk upload's lines, so a record meets exactly the same rules either way.
 */
export type StructuralCheck = (
  schema: object | undefined,
  value: unknown,
  root: string,
  coerce?: boolean,
) => { value: unknown; failures: FieldError[] }

export function createStructuralCheck(): StructuralCheck {
  const ajv = { strict: createAjv(false), coercing: createAjv(true) }
  const compiled = {
    strict: new WeakMap<object, ValidateFunction>(),
    coercing: new WeakMap<object, ValidateFunction>(),
  }
  const validatorFor = (schema: object, coerce: boolean): ValidateFunction => {
    const kind = coerce ? 'coercing' : 'strict'
    let validate = compiled[kind].get(schema)
    if (!validate) {
      validate = ajv[kind].compile(schema)
      compiled[kind].set(schema, validate)
    }
    return validate
  }
  return (schema, input, root, coerce = false) => {
    let value = input
    const failures: FieldError[] = []
    if (value !== undefined && value !== null) value = checkStrings(value, schema as never, root, failures)
    if (!schema) return { value, failures }
    const validate = validatorFor(schema, coerce)
    if (!validate(value)) {
      // A value the string rules already refused is reported once, with the clearer message.
      const flagged = new Set(failures.map((failure) => failure.accessPath))
      failures.push(...toFieldErrors(validate.errors ?? [], root).filter((failure) => !flagged.has(failure.accessPath)))
    }
    return { value, failures }
  }
}
