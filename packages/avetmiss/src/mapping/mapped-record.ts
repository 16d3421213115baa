// A resource the mapping produced from NAT records: the body the API's upload takes, with its UID and
// where it came from.
import type { RecordOrigin } from './origin.ts'
import type { ResourceRecords, ResourceType } from './resource-records.ts'

export type MappedRecordOf<T extends ResourceType> = {
  resourceType: T
  uid: string
  record: ResourceRecords[T]
  origin: RecordOrigin
}

export type MappedRecord = { [T in ResourceType]: MappedRecordOf<T> }[ResourceType]
