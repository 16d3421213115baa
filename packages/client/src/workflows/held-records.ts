// Reading the held dataset's content back (GET /vet-provider/v1/held-records, an extension of the API,
// not in the specification): one resource type page by page along the UID cursor, or all eight as
// one consistent picture for an export.
import type { components } from '../generated/openapi.ts'
import type { Http } from '../http.ts'
import type { RequestOptions } from '../request-options.ts'
import { kindOfType, type ResourceRecord, type ResourceType, type Segment } from '../resources.ts'
import { WorkflowError } from '../errors.ts'
import { requestOptionsOf } from './progress.ts'

export const HELD_RECORDS_PATH = '/vet-provider/v1/held-records'
/** The largest page the service gives. */
const MAX_PAGE_SIZE = 500
/** The most UIDs one request may name. */
const MAX_UIDS_PER_REQUEST = 100

export type HeldRecordsPage = components['schemas']['HeldRecordsPage']
/** A held, not voided, record's latest submitted version: its content (the body as uploaded) and where it stands. */
export type HeldRecord = Omit<components['schemas']['HeldRecord'], 'record'> & {
  resourceType: ResourceType
  record: ResourceRecord
}

export interface HeldRecordsOptions extends RequestOptions {
  /** Records per request, 1 to 500 (default 500). */
  pageSize?: number
  /** Only these records (those of them held), asked 100 UIDs a request; every held record of the type when left out. */
  resourceUIDs?: readonly string[]
  /** Told after each page: the records read so far of this type and, from the first page, how many there are. */
  onPage?: (page: { resourceType: ResourceType; read: number; numberOfResults?: number }) => void
  /** Told each page's latestSubmissionAt (the held dataset's state when it was read). */
  onState?: (latestSubmissionAt: string | null) => void
}

/** Every held, not voided, record of the type, in UID order, a page at a time. */
export async function* heldRecords(
  http: Http,
  resourceType: ResourceType | Segment,
  options: HeldRecordsOptions = {},
): AsyncGenerator<HeldRecord, void, undefined> {
  const type = kindOfType(resourceType).resourceType
  const pageSize = Math.max(1, Math.min(MAX_PAGE_SIZE, options.pageSize ?? MAX_PAGE_SIZE))
  const request = requestOptionsOf(options)
  const uidChunks: (string[] | undefined)[] = []
  if (options.resourceUIDs === undefined) uidChunks.push(undefined)
  else
    for (let i = 0; i < options.resourceUIDs.length; i += MAX_UIDS_PER_REQUEST)
      uidChunks.push(options.resourceUIDs.slice(i, i + MAX_UIDS_PER_REQUEST))
  let read = 0
  let numberOfResults: number | undefined
  for (const resourceUID of uidChunks) {
    let after: string | undefined
    do {
      const page: HeldRecordsPage = await http.send('get', HELD_RECORDS_PATH, {
        ...request,
        query: {
          resourceType: type,
          pageSize,
          ...(after === undefined ? {} : { after }),
          ...(resourceUID === undefined ? {} : { resourceUID }),
        },
      })
      if (resourceUID === undefined) numberOfResults ??= page.numberOfResults
      options.onState?.(page.latestSubmissionAt)
      read += page.results.length
      options.onPage?.({ resourceType: type, read, ...(numberOfResults === undefined ? {} : { numberOfResults }) })
      // The service returns each record as it was uploaded, in its type's schema.
      for (const held of page.results)
        yield { ...held, resourceType: type, record: held.record as unknown as ResourceRecord }
      after = page.nextAfter ?? undefined
    } while (after !== undefined)
  }
}

/** The eight resource types in the order their records refer to one another. */
const ALL_TYPES: readonly ResourceType[] = [
  'DeliveryLocation',
  'Program',
  'Subject',
  'Student',
  'ProgramOffering',
  'SubjectOffering',
  'ProgramEnrolment',
  'SubjectEnrolment',
]

export interface HeldDataset {
  records: HeldRecord[]
  /** When the RTO last submitted before the read: every record is of that state of the held dataset. */
  latestSubmissionAt: string | null
}

export interface HeldDatasetOptions extends Omit<HeldRecordsOptions, 'onState'> {
  /** Reads started again when a submission lands during one (default 2), before giving up. */
  maxRereads?: number
}

/**
 * The whole held dataset of the caller's RTO, every type, as one state: pages are read one after
 * another, so a submission landing part-way would mix two states (an enrolment whose new student was
 * already paged past). Each page says when the RTO last submitted; if that moves during the read, the
 * read starts again, and after maxRereads a WorkflowError says the dataset kept changing.
 */
export async function heldDataset(http: Http, options: HeldDatasetOptions = {}): Promise<HeldDataset> {
  const maxRereads = options.maxRereads ?? 2
  for (let attempt = 0; ; attempt++) {
    const states = new Set<string | null>()
    const records: HeldRecord[] = []
    for (const type of ALL_TYPES)
      for await (const held of heldRecords(http, type, { ...options, onState: (state) => states.add(state) }))
        records.push(held)
    if (states.size <= 1) return { records, latestSubmissionAt: [...states][0] ?? null }
    if (attempt >= maxRereads)
      throw new WorkflowError(
        `the held dataset changed while it was read, ${attempt + 1} times: submissions are landing; read it again when they stop`,
        [...states],
      )
  }
}
