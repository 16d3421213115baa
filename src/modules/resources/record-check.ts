// The structural check of one record against its resource's schema, exactly as its upload checks the
// body (the string rules, then the schema, UUID v4 UIDs included), for records that reach the service
// in another form than an upload body: the NAT bridge's records, mapped from NAT files in the service.
import type { FieldError } from '../../domain/errors.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import { createStructuralCheck } from '../../platform/schema/structural-check.ts'
import { resourceDefinitions } from './resource.schemas.ts'

export type RecordCheckOutcome =
  | { body: Record<string, unknown>; uidField: string; failures?: undefined }
  | { failures: FieldError[] }

/** Checks a record of a resource type; failures have access paths from `$`, the record. */
export type RecordCheck = (resourceType: ResourceType, record: unknown) => RecordCheckOutcome

export function createRecordCheck(): RecordCheck {
  const check = createStructuralCheck()
  const definitionOf = new Map(resourceDefinitions.map((definition) => [definition.resourceType, definition]))
  return (resourceType, record) => {
    const definition = definitionOf.get(resourceType)
    if (!definition) return { failures: [{ accessPath: '$', message: `names no resource type (${resourceType})` }] }
    const { value, failures } = check(definition.schema, record, '$')
    if (failures.length > 0) return { failures }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return { failures: [{ accessPath: '$', message: 'must be a JSON object' }] }
    return { body: value as Record<string, unknown>, uidField: definition.uidField }
  }
}
