// The service's operations, one method each, typed from the generated OpenAPI types. Paged
// endpoints are async iterators that run to the last page. The standard workflows, built on these,
// are in ./workflows.
import { Http, type HttpOptions, type Operation, type Success } from './http.ts'
import { allItems } from './paging.ts'
import { kindOf, kindOfType, type ResourceRecord, type ResourceType, type Segment, type Student } from './resources.ts'
import { ServiceError } from './errors.ts'

const V1 = '/vet-provider/v1'
export type Jurisdiction = 'NAT' | 'NSW' | 'VIC' | 'QLD' | 'WA' | 'SA' | 'TAS' | 'ACT' | 'NT'

type Ok<P extends Parameters<Http['send']>[1], M extends 'get' | 'post' | 'put' | 'delete'> = Success<Operation<P, M>>
export type Batch = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}', 'get'>
export type BatchSummary = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch', 'get'>['results'][number]
export type CreatedBatch = Ok<'/vet-provider/v1/{jurisdiction}/transaction-batch', 'post'>
export type UploadResult = Ok<
  '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/student',
  'post'
>
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
export type HeldState = Ok<'/vet-provider/v1/student/{studentUID}', 'get'>
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

export type ClientOptions = HttpOptions

export class VetrsClient {
  readonly http: Http
  constructor(options: ClientOptions) {
    this.http = new Http(options)
  }

  get limits() {
    return this.http.limits
  }

  // Transaction batches (spec: Endpoints, Transaction batch)

  createBatch(jurisdiction: Jurisdiction): Promise<CreatedBatch> {
    return this.http.send('post', `${V1}/{jurisdiction}/transaction-batch`, { path: { jurisdiction } })
  }

  batches(jurisdiction: Jurisdiction): AsyncGenerator<BatchSummary> {
    return allItems((pageNumber) =>
      this.http.send('get', `${V1}/{jurisdiction}/transaction-batch`, {
        path: { jurisdiction },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  batch(jurisdiction: Jurisdiction, transactionBatchToken: string): Promise<Batch> {
    return this.http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}`, {
      path: { jurisdiction, transactionBatchToken },
    })
  }

  async discardBatch(jurisdiction: Jurisdiction, transactionBatchToken: string): Promise<void> {
    await this.http.send('delete', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}`, {
      path: { jurisdiction, transactionBatchToken },
    })
  }

  // Records inside a batch. An upload creates or fully replaces the record named by its UID, so it
  // is safe to send again.

  upload(jurisdiction: Jurisdiction, transactionBatchToken: string, record: ResourceRecord): Promise<UploadResult> {
    const { segment } = kindOf(record)
    return this.http.send(
      'post',
      forSegment(`${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/student`, segment),
      {
        path: { jurisdiction, transactionBatchToken },
        body: record as Student,
        idempotent: true,
      },
    )
  }

  async deleteRecord(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    segment: Segment,
    uid: string,
  ): Promise<void> {
    await this.http.send(
      'delete',
      forSegment(`${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/student/{studentUID}`, segment),
      {
        path: { jurisdiction, transactionBatchToken, studentUID: uid, [kindOfType(segment).uidField]: uid },
      },
    )
  }

  records(jurisdiction: Jurisdiction, transactionBatchToken: string, segment: Segment): AsyncGenerator<ResourceRecord> {
    return allItems((pageNumber) =>
      this.http.send(
        'get',
        forSegment(`${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/student`, segment),
        {
          path: { jurisdiction, transactionBatchToken },
          query: { pageNumber, pageSize: this.limits.pageSize },
        },
      ),
    )
  }

  // Validation and submit (spec: Batch validation status, Validation result)

  requestValidation(jurisdiction: Jurisdiction, transactionBatchToken: string): Promise<ValidationStatus> {
    return this.http.send('post', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate`, {
      path: { jurisdiction, transactionBatchToken },
    })
  }

  validationStatus(jurisdiction: Jurisdiction, transactionBatchToken: string): Promise<ValidationStatus> {
    return this.http.send('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate`, {
      path: { jurisdiction, transactionBatchToken },
    })
  }

  validationResults(jurisdiction: Jurisdiction, transactionBatchToken: string): AsyncGenerator<ValidationResult> {
    return allItems((pageNumber) =>
      this.http.send(
        'get',
        `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/failed-validation-results`,
        {
          path: { jurisdiction, transactionBatchToken },
          query: { pageNumber, pageSize: this.limits.pageSize },
        },
      ),
    )
  }

  submitBatch(jurisdiction: Jurisdiction, transactionBatchToken: string): Promise<SubmitResult> {
    return this.http.send('post', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/submit`, {
      path: { jurisdiction, transactionBatchToken },
    })
  }

  // Held data and reconciliation (spec: Reconciliation; Standard workflows 3)

  heldState(resourceType: ResourceType | Segment, uid: string): Promise<HeldState> {
    const { segment } = kindOfType(resourceType)
    return this.http.send('get', forSegment(`${V1}/student/{studentUID}`, segment), {
      path: { studentUID: uid, [kindOfType(segment).uidField]: uid },
    })
  }

  searchByPeriod(query: SearchQuery): AsyncGenerator<ReconciliationItem> {
    return allItems((pageNumber) =>
      this.http.send('get', `${V1}/search-by-period`, {
        query: { ...query, pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  uidMatch(body: {
    resourceType: SearchQuery['resourceType']
    reportingPeriod: string
    resourceUIDs: string[]
  }): Promise<UidMatch> {
    return this.http.send('post', `${V1}/uid-match`, { body, idempotent: true })
  }

  relatedResources(
    resourceType: 'student' | 'programenrolment' | 'subjectenrolment',
    uid: string,
  ): AsyncGenerator<ReconciliationItem> {
    return allItems((pageNumber) =>
      this.http.send('get', `${V1}/{resourceType}/{uid}/related-resources`, {
        path: { resourceType, uid },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  // Data quality assessment and declarations (spec: Endpoints, Data quality assessment; Declarations)

  requestAssessment(jurisdiction: Jurisdiction, reportingPeriod: number | string): Promise<AssessmentStatus> {
    return this.http.send('post', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  assessmentStatus(jurisdiction: Jurisdiction, reportingPeriod: number | string): Promise<AssessmentStatus> {
    return this.http.send('get', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  async cancelAssessment(jurisdiction: Jurisdiction, reportingPeriod: number | string): Promise<void> {
    await this.http.send('delete', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/validate`, {
      path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
    })
  }

  assessmentResults(jurisdiction: Jurisdiction, reportingPeriod: number | string): AsyncGenerator<AssessmentResult> {
    return allItems((pageNumber) =>
      this.http.send('get', `${V1}/reporting-period/{jurisdiction}/{ReportingPeriodNumber}/failed-validation-results`, {
        path: { jurisdiction, ReportingPeriodNumber: String(reportingPeriod) },
        query: { pageNumber, pageSize: this.limits.pageSize },
      }),
    )
  }

  declare(body: DeclarationRequest): Promise<DeclarationSaved> {
    return this.http.send('post', `${V1}/declaration`, { body })
  }

  declarations(query: DeclarationQuery): AsyncGenerator<DeclarationRow> {
    // Declarations page at most 100 a page (spec: Limits).
    return allItems((pageNumber) =>
      this.http.send('get', `${V1}/declaration`, {
        query: { ...query, pageNumber, pageSize: Math.min(100, this.limits.pageSize) },
      }),
    )
  }

  // Reference data (spec: Reference data synchronisation). A dataset name `classification/<name>`
  // reads a classification (country, language); any other name a code list.

  referencePage(dataset: string, changedSince: string, pageNumber: number): Promise<ReferencePage> {
    const page = { changedSince, PageNumber: pageNumber, PageSize: this.limits.pageSize }
    const classification = /^classification\/(.+)$/.exec(dataset)?.[1]
    return classification === undefined
      ? this.http.send('get', `${V1}/reference-data/{dataset}`, { path: { dataset }, query: page })
      : this.http.send('get', `${V1}/classification`, { query: { ...page, classification } })
  }
}

/**
 * The routes of the eight resources differ only in their segment and UID parameter name, so one
 * generated operation (student's) types them all; this names the route of the segment wanted.
 */
function forSegment<T extends string>(template: T, segment: Segment): T {
  const { uidField } = kindOfType(segment)
  return template.replace('/student', `/${segment}`).replace('{studentUID}', `{${uidField}}`) as T
}

export { ServiceError }
