// The service's operations: each a method typed from the generated OpenAPI types, each resource's
// records under a property of their own (`vetrs.students.upload(...)`). Paged endpoints are async
// iterators that run to the last page, and give one page at a time too (`.page()`, paging.ts). Every
// method takes RequestOptions (signal, timeoutMs) last.
// The standard workflows are added in vetrs.ts.
import { Http, type HttpOptions, type Operation, type Success } from './http.ts'
import { paged, type Paged } from './paging.ts'
import type { RequestOptions } from './request-options.ts'
import { Resource, type HeldState, type Jurisdiction, type RecordOf, type UploadResult } from './resource.ts'
import { kindOf, kindOfType, type ResourceRecord, type ResourceType, type Segment } from './resources.ts'
import type { AppInfo } from './version.ts'
import { type ProblemDetails, ServiceError, WorkflowError } from './errors.ts'
import {
  bulkUploadOfferIn,
  uploadMany,
  type BulkUploadOffer,
  type UploadManyOptions,
  type UploadManyOutcome,
} from './workflows/upload-many.ts'
import { abortable, sleep } from './request-options.ts'
import {
  heldDataset,
  heldRecords,
  type HeldDataset,
  type HeldDatasetOptions,
  type HeldRecord,
  type HeldRecordsOptions,
} from './workflows/held-records.ts'

const V1 = '/vet-provider/v1'

type Ok<P extends Parameters<Http['send']>[1], M extends 'get' | 'post' | 'put' | 'patch' | 'delete'> = Success<
  Operation<P, M>
>
export type Batch = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}', 'get'>
export type BatchSummary = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch', 'get'>['results'][number]
export type CreatedBatch = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch', 'post'>
export type ValidationStatus = Ok<
  '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate',
  'get'
>
export type ValidationResult = Ok<
  '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/failed-validation-results',
  'get'
>['results'][number]
export type SubmitResult = Ok<
  '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/submit',
  'post'
>
export type SearchQuery = Omit<
  Operation<'/vet-provider/v1/search-by-period', 'get'>['parameters']['query'],
  'pageNumber' | 'pageSize'
>
export type ReconciliationItem = Ok<'/vet-provider/v1/search-by-period', 'get'>['results'][number]
export type UidMatch = Ok<'/vet-provider/v1/uid-match', 'post'>
export type UidMatchItem = UidMatch['results'][number]
export type AssessmentStatus = Ok<
  '/vet-provider/v1/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate',
  'get'
>
export type AssessmentResult = Ok<
  '/vet-provider/v1/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/failed-validation-results',
  'get'
>['results'][number]
export type DeclarationRequest = NonNullable<
  Operation<'/vet-provider/v1/declaration', 'post'>['requestBody']
>['content']['application/json']
export type DeclarationSaved = Ok<'/vet-provider/v1/declaration', 'post'>
export type DeclarationQuery = Partial<Operation<'/vet-provider/v1/declaration', 'get'>['parameters']['query']>
export type DeclarationRow = Ok<'/vet-provider/v1/declaration', 'get'>['results'][number]
export type ReferenceRecord = Ok<'/vet-provider/v1/reference-data/{dataset}', 'get'>['results'][number]
export type ReferencePage = Ok<'/vet-provider/v1/reference-data/{dataset}', 'get'>
export type NatImportResult = Ok<'/vet-provider/v1/{jurisdiction}/nat-import', 'post'>
/** A NAT import queued as a job: its status, progress, and at the end its answer or problem. */
export type NatImportStatus = Ok<'/vet-provider/v1/{jurisdiction}/nat-import/{importId}', 'get'>
export type NatFinding = Ok<
  '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/nat-import/findings',
  'get'
>['results'][number]
export type EventPage = Ok<'/vet-provider/v1/events', 'get'>
/** An event of the change feed: a CloudEvents 1.0 envelope with the RTO's `sequence` (the cursor). */
export type VetrsEvent = EventPage['events'][number]
export type { HeldState, Jurisdiction, RecordOf, UploadResult }
/** A webhook endpoint of the RTO (never its secret). */
export type WebhookEndpoint = Ok<'/vet-provider/v1/webhook-endpoints/{endpointId}', 'get'>
/** An endpoint just registered, with its signing secret (shown this once). */
export type CreatedWebhookEndpoint = Ok<'/vet-provider/v1/webhook-endpoints', 'post'>
export type NewWebhookEndpoint = NonNullable<
  Operation<'/vet-provider/v1/webhook-endpoints', 'post'>['requestBody']
>['content']['application/json']
export type WebhookEndpointChange = NonNullable<
  Operation<'/vet-provider/v1/webhook-endpoints/{endpointId}', 'patch'>['requestBody']
>['content']['application/json']
export type RotatedWebhookSecret = Ok<'/vet-provider/v1/webhook-endpoints/{endpointId}/rotate-secret', 'post'>
/** One delivery attempt of the log. */
export type WebhookDelivery = Ok<'/vet-provider/v1/webhook-endpoints/{endpointId}/deliveries', 'get'>['results'][number]

/** How `events()` reads the change feed. */
export interface EventsOptions extends RequestOptions {
  /** Events per request (1 to 500; default the client's page size). */
  pageSize?: number
  /**
   * Keep waiting for new events once caught up, asking again every `pollIntervalMs` (default 5 000
   * ms), until `signal` aborts. Without it the iterator ends at the first empty page.
   */
  follow?: boolean
  pollIntervalMs?: number
}

/** submitBatch's options: the request's, and the acknowledgement of a NAT import's dropped lines. */
export interface SubmitBatchOptions extends RequestOptions {
  /**
   * The number of NAT problems the NAT import that made the batch left out (natProblemCount, or a 409
   * nat-lines-dropped's droppedCount): submit without them. Must equal it; ignored for other batches.
   */
  acknowledgeDropped?: number
}

export interface ClientOptions {
  /** The service root, e.g. https://vetrs.example.gov.au (no /vet-provider/v1). */
  baseUrl: string
  credentials: HttpOptions['credentials']
  /** Longest wait for one attempt of a request, unless a call says otherwise. Default 60 000 ms (60 s). */
  timeoutMs?: number
  /**
   * Longest time for one call, all its retries and back-off included, unless a call says otherwise
   * (RequestOptions.deadlineMs). Default: none (the retry policy and timeoutMs bound it).
   */
  deadlineMs?: number
  /** Your application (the SMS), added to the User-Agent: `vetrs-client/0.2.0 node/24.11.0 AcmeSMS/4.2 (+https://...)`. */
  appInfo?: AppInfo
  /** When and how often to retry (default 6 attempts, back-off from 250 ms, at most 30 s). */
  retry?: HttpOptions['retry']
  /** Request size limits and page sizes (default: the service's published limits). */
  limits?: HttpOptions['limits']
  /** Replaces the global fetch (for proxies, instrumentation). It is given each attempt's AbortSignal. */
  fetch?: HttpOptions['fetch']
  /** Told before each wait (token requests included), so a caller can show or log it. */
  onRetry?: HttpOptions['onRetry']
}

/** Who the service takes a client for (VetrsOperations.caller). */
export interface Caller {
  clientId: string
  /** The RTO the client acts for: every request is scoped to it. */
  rto: string
  scopes: string[]
}

/** The claims of a JWT, undefined when the token is not one. */
function claimsOf(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1]
  if (!payload) return undefined
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * Every operation of the service, one method each. The standard workflows (vetrs.ts) are written
 * against this class, and Vetrs adds them to it, so no workflow imports the class that calls it.
 */
export class VetrsOperations {
  readonly #http: Http

  /** Records in a batch, one resource type each: upload, get, delete, list, heldState. */
  readonly students: Resource<'student'>
  readonly deliveryLocations: Resource<'deliverylocation'>
  readonly programs: Resource<'program'>
  readonly programOfferings: Resource<'programoffering'>
  readonly programEnrolments: Resource<'programenrolment'>
  readonly subjects: Resource<'subject'>
  readonly subjectOfferings: Resource<'subjectoffering'>
  readonly subjectEnrolments: Resource<'subjectenrolment'>
  readonly #resources: { [S in Segment]: Resource<S> }
  #bulkUploadOffer: Promise<BulkUploadOffer | undefined> | undefined

  constructor(options: ClientOptions) {
    this.#http = new Http(options)
    this.students = new Resource(this.#http, 'student')
    this.deliveryLocations = new Resource(this.#http, 'deliverylocation')
    this.programs = new Resource(this.#http, 'program')
    this.programOfferings = new Resource(this.#http, 'programoffering')
    this.programEnrolments = new Resource(this.#http, 'programenrolment')
    this.subjects = new Resource(this.#http, 'subject')
    this.subjectOfferings = new Resource(this.#http, 'subjectoffering')
    this.subjectEnrolments = new Resource(this.#http, 'subjectenrolment')
    this.#resources = {
      student: this.students,
      deliverylocation: this.deliveryLocations,
      program: this.programs,
      programoffering: this.programOfferings,
      programenrolment: this.programEnrolments,
      subject: this.subjects,
      subjectoffering: this.subjectOfferings,
      subjectenrolment: this.subjectEnrolments,
    }
  }

  get baseUrl(): string {
    return this.#http.baseUrl
  }

  get limits() {
    return this.#http.limits
  }

  /** The per-attempt timeout in force when a call gives none (ClientOptions.timeoutMs, default 60 000 ms). */
  get timeoutMs(): number {
    return this.#http.timeoutMs
  }

  /** What every request sends as its User-Agent. */
  get userAgent(): string {
    return this.#http.userAgent
  }

  /** Obtains an access token now, so wrong credentials or an unreachable service show at once (the CLI's login). */
  async authenticate(options: RequestOptions = {}): Promise<void> {
    await this.#http.tokens.token(options.signal)
  }

  /**
   * Who the service takes this client for: the client, the RTO it acts for and its scopes, as the
   * access token the service issued says them (its `client_id`, `rto` and `scope` claims, read, not
   * verified: the service verifies the token on every request). The CLI's NAT import checks the NAT
   * files' training organisation against the RTO before it uploads anything.
   */
  async caller(options: RequestOptions = {}): Promise<Caller> {
    const token = await this.#http.tokens.token(options.signal)
    const claims = claimsOf(token)
    const rto = claims?.rto
    const clientId = claims?.client_id ?? claims?.sub
    if (typeof rto !== 'string' || rto === '' || typeof clientId !== 'string')
      throw new WorkflowError('the access token does not say which RTO it acts for (no rto claim)', { claims })
    const scope = typeof claims?.scope === 'string' ? claims.scope : ''
    return { clientId, rto, scopes: scope.split(' ').filter(Boolean) }
  }

  // Transaction batches (spec: Endpoints, Transaction batch)

  createBatch(jurisdiction: Jurisdiction, options: RequestOptions = {}): Promise<CreatedBatch> {
    return this.#http.send('post', `${V1}/{jurisdiction}/transaction-batch`, { ...options, path: { jurisdiction } })
  }

  batches(jurisdiction: Jurisdiction, options: RequestOptions = {}): Paged<BatchSummary> {
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/{jurisdiction}/transaction-batch`, {
        ...options,
        path: { jurisdiction },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  batch(jurisdiction: Jurisdiction, transactionBatchToken: string, options: RequestOptions = {}): Promise<Batch> {
    return this.#http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}`, {
      ...options,
      path: { jurisdiction, transactionBatchToken },
    })
  }

  async discardBatch(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Promise<void> {
    await this.#http.send('delete', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}`, {
      ...options,
      path: { jurisdiction, transactionBatchToken },
    })
  }

  /**
   * Uploads any record, its type told from its own UID field (so an SMS can hand over mixed records).
   * `vetrs.students.upload(...)` and the like take one type, checked at compile time.
   */
  upload(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    record: ResourceRecord,
    options: RequestOptions = {},
  ): Promise<UploadResult> {
    const resource = this.#resources[kindOf(record).segment] as Resource<Segment>
    return resource.upload(jurisdiction, transactionBatchToken, record as RecordOf<Segment>, options)
  }

  /**
   * Uploads many records of any types into the batch in as few requests as the limits allow: through
   * the service's bulk upload (an extension of the API, POST .../records with NDJSON) when it offers
   * it, one request per record otherwise. Bulk requests go a few at a time (bulkConcurrency, default
   * 3), never two carrying the same record, so a record given twice ends as its last version. Each
   * request is all or nothing: a refused one throws BulkUploadError, naming the refused records by
   * index and how many of the first records were stored.
   */
  uploadMany(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    records: readonly ResourceRecord[],
    options: UploadManyOptions = {},
  ): Promise<UploadManyOutcome> {
    const http = this.#http
    const client = {
      http,
      limits: http.limits,
      bulkUploadOffer: (request: RequestOptions) => this.bulkUploadOffer(request),
      upload: (j: string, token: string, record: ResourceRecord, request: RequestOptions) =>
        this.upload(j as Jurisdiction, token, record, request),
    }
    return uploadMany(client, jurisdiction, transactionBatchToken, records, options)
  }

  /**
   * Whether the service offers the bulk upload, and its record limit, from its OpenAPI description
   * (GET /openapi.json), read once per client; undefined when it does not. A description that could
   * not be fetched (no answer) is asked for again next time.
   */
  bulkUploadOffer(options: RequestOptions = {}): Promise<BulkUploadOffer | undefined> {
    if (!this.#bulkUploadOffer) {
      // Shared by concurrent callers: no caller's signal cancels it, each just stops waiting.
      const reading = this.#http.publicJson('/openapi.json', { timeoutMs: options.timeoutMs ?? this.timeoutMs })
      this.#bulkUploadOffer = reading.then(bulkUploadOfferIn)
      this.#bulkUploadOffer.catch(() => {
        this.#bulkUploadOffer = undefined
      })
    }
    return abortable(this.#bulkUploadOffer, options.signal)
  }

  // Validation and submit (spec: Batch validation status, Validation result)

  requestValidation(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Promise<ValidationStatus> {
    return this.#http.send('post', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate`, {
      ...options,
      path: { jurisdiction, transactionBatchToken },
    })
  }

  validationStatus(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Promise<ValidationStatus> {
    return this.#http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate`, {
      ...options,
      path: { jurisdiction, transactionBatchToken },
    })
  }

  validationResults(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Paged<ValidationResult> {
    return paged((pageNumber) =>
      this.#http.send(
        'get',
        `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/failed-validation-results`,
        {
          ...options,
          path: { jurisdiction, transactionBatchToken },
          query: { pageNumber, pageSize: this.limits.pageSize },
        },
      ),
    )
  }

  // NAT import (an extension of the API, issue 19: not in the specification)

  /**
   * Imports a zip of AVETMISS 8.0 NAT files into a new batch: the service reads and maps them and
   * stores every record it can, answering the rest as NAT problems at their file, line and field
   * (POST .../{jurisdiction}/nat-import). The import is a job on the service: it is queued (Prefer:
   * respond-async, repeated after a lost answer with the same idempotency key, so a second import is
   * never queued), then its status is polled (`onProgress` is told each one: files and lines read,
   * records stored) until it ends: its answer, or a ServiceError with the problem that ended it.
   */
  async natImport(
    jurisdiction: Jurisdiction,
    zip: Uint8Array,
    options: RequestOptions & { onProgress?(status: NatImportStatus): void; pollIntervalMs?: number } = {},
  ): Promise<NatImportResult> {
    const { onProgress, pollIntervalMs = 500, ...requestOptions } = options
    let status = (await this.#http.request('post', `${V1}/{jurisdiction}/nat-import`, {
      ...requestOptions,
      path: { jurisdiction },
      prefer: 'respond-async',
      encoded: { bytes: zip, contentType: 'application/zip', contentEncoding: 'identity' },
    })) as NatImportStatus
    for (;;) {
      onProgress?.(status)
      if (status.status === 'Completed' && status.result) return status.result as NatImportResult
      if (status.status === 'Failed' && status.problem) {
        const path = `${V1}/${jurisdiction}/nat-import/${status.importId}`
        throw new ServiceError('GET', path, status.problem.status, status.problem as ProblemDetails)
      }
      await sleep(pollIntervalMs, requestOptions.signal)
      status = await this.natImportStatus(jurisdiction, status.importId, requestOptions)
    }
  }

  /** Where a queued NAT import is (GET .../{jurisdiction}/nat-import/{importId}). */
  natImportStatus(
    jurisdiction: Jurisdiction,
    importId: string,
    options: RequestOptions = {},
  ): Promise<NatImportStatus> {
    return this.#http.send('get', `${V1}/{jurisdiction}/nat-import/{importId}`, {
      ...options,
      path: { jurisdiction, importId },
    })
  }

  /** What the NAT import that made the batch answered, as it answered it. */
  natImportOf(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Promise<NatImportResult> {
    return this.#http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/nat-import`, {
      ...options,
      path: { jurisdiction, transactionBatchToken },
    })
  }

  /** The batch's failed validation results, each with the NAT file, line and field it came from. */
  natImportFindings(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: RequestOptions = {},
  ): Paged<NatFinding> {
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/nat-import/findings`, {
        ...options,
        path: { jurisdiction, transactionBatchToken },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  /**
   * Submits the batch. A batch made by a NAT import that left NAT problems out (its answer's
   * natProblemCount) is refused with 409 nat-lines-dropped (`problem.droppedCount`) unless
   * `acknowledgeDropped` gives that number: submit without what they name.
   */
  submitBatch(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    options: SubmitBatchOptions = {},
  ): Promise<SubmitResult> {
    const { acknowledgeDropped, ...request } = options
    return this.#http.send('post', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/submit`, {
      ...request,
      path: { jurisdiction, transactionBatchToken },
      ...(acknowledgeDropped === undefined ? {} : { query: { acknowledgeDropped } }),
    })
  }

  // Held data and reconciliation (spec: Reconciliation; Standard workflows 3)

  /** Whether a record of any type is held; `vetrs.students.heldState(uid)` and the like for one type. */
  heldState(resourceType: ResourceType | Segment, uid: string, options: RequestOptions = {}): Promise<HeldState> {
    return this.#resources[kindOfType(resourceType).segment].heldState(uid, options)
  }

  /**
   * Every held, not voided, record of the type with its content (the latest submitted version), in UID
   * order, a page at a time: GET /vet-provider/v1/held-records, an extension of the API that the
   * specification does not have (its held-data endpoints never return content).
   */
  heldRecords(resourceType: ResourceType | Segment, options: HeldRecordsOptions = {}): AsyncGenerator<HeldRecord> {
    return heldRecords(this.#http, resourceType, options)
  }

  /**
   * The caller's whole held dataset, every type, as one state: read again when a submission lands
   * during the read (a WorkflowError when that keeps happening). For exports (vetrs nat export).
   */
  heldDataset(options: HeldDatasetOptions = {}): Promise<HeldDataset> {
    return heldDataset(this.#http, options)
  }

  searchByPeriod(query: SearchQuery, options: RequestOptions = {}): Paged<ReconciliationItem> {
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/search-by-period`, {
        ...options,
        query: { ...query, pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  uidMatch(
    body: { resourceType: SearchQuery['resourceType']; reportingPeriod: string; resourceUIDs: string[] },
    options: RequestOptions = {},
  ): Promise<UidMatch> {
    // A read: safe to repeat as it is, so it carries no idempotency key.
    return this.#http.send('post', `${V1}/uid-match`, { ...options, body, idempotent: true, idempotencyKey: false })
  }

  relatedResources(
    resourceType: 'student' | 'programenrolment' | 'subjectenrolment',
    uid: string,
    options: RequestOptions = {},
  ): Paged<ReconciliationItem> {
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/{resourceType}/{uid}/related-resources`, {
        ...options,
        path: { resourceType, uid },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  // Data quality assessment and declarations (spec: Endpoints, Data quality assessment; Declarations)

  requestAssessment(
    jurisdiction: Jurisdiction,
    reportingPeriod: number | string,
    options: RequestOptions = {},
  ): Promise<AssessmentStatus> {
    return this.#http.send('post', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      ...options,
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  assessmentStatus(
    jurisdiction: Jurisdiction,
    reportingPeriod: number | string,
    options: RequestOptions = {},
  ): Promise<AssessmentStatus> {
    return this.#http.send('get', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      ...options,
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  async cancelAssessment(
    jurisdiction: Jurisdiction,
    reportingPeriod: number | string,
    options: RequestOptions = {},
  ): Promise<void> {
    await this.#http.send('delete', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      ...options,
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  assessmentResults(
    jurisdiction: Jurisdiction,
    reportingPeriod: number | string,
    options: RequestOptions = {},
  ): Paged<AssessmentResult> {
    return paged((pageNumber) =>
      this.#http.send(
        'get',
        `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/failed-validation-results`,
        {
          ...options,
          path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
          query: { pageNumber, pageSize: this.limits.pageSize },
        },
      ),
    )
  }

  declare(body: DeclarationRequest, options: RequestOptions = {}): Promise<DeclarationSaved> {
    return this.#http.send('post', `${V1}/declaration`, { ...options, body })
  }

  declarations(query: DeclarationQuery, options: RequestOptions = {}): Paged<DeclarationRow> {
    // Declarations page at most 100 a page (spec: Limits).
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/declaration`, {
        ...options,
        query: { ...query, pageNumber, pageSize: Math.min(100, this.limits.pageSize) },
      }),
    )
  }

  // The change feed (an extension, issue 33): the RTO's events after a cursor, in order.

  /** One page of the RTO's events after the cursor (an event's `sequence`; '0' for the first). */
  eventPage(after: string, pageSize: number = this.limits.pageSize, options: RequestOptions = {}): Promise<EventPage> {
    return this.#http.send('get', `${V1}/events`, { ...options, query: { after, pageSize: Math.min(500, pageSize) } })
  }

  /**
   * The RTO's events after the cursor, in order, page after page. Store an event's `sequence` once it
   * is handled and give it as `after` to resume there; delivery is at least once (an event handled but
   * not stored comes again: drop it by `id`).
   */
  async *events(after = '0', options: EventsOptions = {}): AsyncGenerator<VetrsEvent, void, undefined> {
    const { pageSize = this.limits.pageSize, follow = false, pollIntervalMs = 5_000, ...request } = options
    let cursor = after
    for (;;) {
      const page = await this.eventPage(cursor, pageSize, request)
      yield* page.events
      cursor = page.nextCursor
      if (page.events.length === 0) {
        if (!follow) return
        await sleep(pollIntervalMs, request.signal)
      }
    }
  }

  // Webhooks (an extension, issue 33): endpoints the service POSTs the RTO's events to, signed per
  // Standard Webhooks (verify a delivery with verifyWebhook).

  /** Registers an endpoint; the answer carries its signing secret, shown this once. */
  addWebhookEndpoint(body: NewWebhookEndpoint, options: RequestOptions = {}): Promise<CreatedWebhookEndpoint> {
    // No idempotency key: the service keeps no answer that holds a secret (a retry could register twice).
    return this.#http.send('post', `${V1}/webhook-endpoints`, { ...options, body, idempotencyKey: false })
  }

  async webhookEndpoints(options: RequestOptions = {}): Promise<WebhookEndpoint[]> {
    return (await this.#http.send('get', `${V1}/webhook-endpoints`, options)).endpoints
  }

  webhookEndpoint(endpointId: string, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return this.#http.send('get', `${V1}/webhook-endpoints/{endpointId}`, { ...options, path: { endpointId } })
  }

  /** Changes its URL, event types, description, or `enabled` (true: delivering again from the event it was held at). */
  updateWebhookEndpoint(
    endpointId: string,
    change: WebhookEndpointChange,
    options: RequestOptions = {},
  ): Promise<WebhookEndpoint> {
    return this.#http.send('patch', `${V1}/webhook-endpoints/{endpointId}`, {
      ...options,
      path: { endpointId },
      body: change,
    })
  }

  async removeWebhookEndpoint(endpointId: string, options: RequestOptions = {}): Promise<void> {
    await this.#http.send('delete', `${V1}/webhook-endpoints/{endpointId}`, { ...options, path: { endpointId } })
  }

  /** A new signing secret (shown this once); the previous one stays valid until previousSecretValidUntil. */
  rotateWebhookSecret(endpointId: string, options: RequestOptions = {}): Promise<RotatedWebhookSecret> {
    return this.#http.send('post', `${V1}/webhook-endpoints/{endpointId}/rotate-secret`, {
      ...options,
      path: { endpointId },
      idempotencyKey: false,
    })
  }

  /** The endpoint's delivery log, newest first. */
  webhookDeliveries(endpointId: string, options: RequestOptions = {}): Paged<WebhookDelivery> {
    return paged((pageNumber) =>
      this.#http.send('get', `${V1}/webhook-endpoints/{endpointId}/deliveries`, {
        ...options,
        path: { endpointId },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  /** Has the event of a logged delivery sent again (soon, once, with the same webhook-id). */
  async redeliverWebhook(endpointId: string, deliveryId: string, options: RequestOptions = {}): Promise<void> {
    await this.#http.request('post', `${V1}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver`, {
      ...options,
      path: { endpointId, deliveryId },
    })
  }

  // Reference data (spec: Reference data synchronisation). A dataset name `classification/<name>`
  // reads a classification (country, language); any other name a code list.

  referencePage(
    dataset: string,
    changedSince: string,
    pageNumber: number,
    options: RequestOptions = {},
  ): Promise<ReferencePage> {
    const page = { changedSince, PageNumber: pageNumber, PageSize: this.limits.pageSize }
    const classification = /^classification\/(.+)$/.exec(dataset)?.[1]
    return classification === undefined
      ? this.#http.send('get', `${V1}/reference-data/{dataset}`, { ...options, path: { dataset }, query: page })
      : this.#http.send('get', `${V1}/classification`, { ...options, query: { ...page, classification } })
  }
}
