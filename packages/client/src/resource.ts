// The records of one resource type inside a batch (spec: Endpoints, Resources), typed from the
// generated OpenAPI types: `vetrs.students.upload(jurisdiction, batch, student)` takes a Student,
// `vetrs.programs.list(...)` yields Programs. The eight resources' routes differ only in their
// segment and UID parameter, so one class serves them all.
import type { Http, Operation, Success } from './http.ts'
import { paged, type Paged } from './paging.ts'
import { kindOfType, type Segment } from './resources.ts'
import type { RequestOptions } from './request-options.ts'

const V1 = '/vet-provider/v1'

type UploadPath<S extends Segment> = `/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/${S}`
type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
/** The record type of a segment, as the generated upload operation declares its body. */
export type RecordOf<S extends Segment> = JsonBody<Operation<UploadPath<S>, 'post'>>
export type Jurisdiction = Operation<UploadPath<'student'>, 'post'>['parameters']['path']['jurisdiction']
export type UploadResult = Success<Operation<UploadPath<'student'>, 'post'>>
export type HeldState = Success<Operation<'/vet-provider/v1/student/{studentUID}', 'get'>>

/** One resource type's operations. Reached as a property of the client (`vetrs.students`, `vetrs.subjectEnrolments`...). */
export class Resource<S extends Segment> {
  readonly segment: S
  /** The record's own UID field, e.g. studentUID. */
  readonly uidField: string
  readonly #http: Http

  /** @internal the client builds one per resource type */
  constructor(http: Http, segment: S) {
    this.#http = http
    this.segment = segment
    this.uidField = kindOfType(segment).uidField
  }

  get resourceType() {
    return kindOfType(this.segment).resourceType
  }

  /** Creates or fully replaces the record (by its UID) in the batch; safe to send again. */
  upload(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    record: RecordOf<S>,
    options: RequestOptions = {},
  ): Promise<UploadResult> {
    return this.#http.request(
      'post',
      `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/${this.segment}`,
      {
        ...options,
        path: { jurisdiction, transactionBatchToken },
        body: record,
        idempotent: true,
      },
    ) as Promise<UploadResult>
  }

  /** The record as the batch holds it. */
  get(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    uid: string,
    options: RequestOptions = {},
  ): Promise<RecordOf<S>> {
    return this.#http.request('get', this.#recordPath(), {
      ...options,
      path: { jurisdiction, transactionBatchToken, [this.uidField]: uid },
    }) as Promise<RecordOf<S>>
  }

  /** Removes the record from the batch (not from the held data: void it for that). */
  async delete(
    jurisdiction: Jurisdiction,
    transactionBatchToken: string,
    uid: string,
    options: RequestOptions = {},
  ): Promise<void> {
    await this.#http.request('delete', this.#recordPath(), {
      ...options,
      path: { jurisdiction, transactionBatchToken, [this.uidField]: uid },
    })
  }

  /** Every record of this type in the batch, page after page, ordered by UID. */
  list(jurisdiction: Jurisdiction, transactionBatchToken: string, options: RequestOptions = {}): Paged<RecordOf<S>> {
    return paged(
      (pageNumber) =>
        this.#http.request('get', `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/${this.segment}`, {
          ...options,
          path: { jurisdiction, transactionBatchToken },
          query: { pageNumber, pageSize: this.#http.limits.pageSize },
        }) as Promise<{ pageNumber: number; numberOfPages: number; results: RecordOf<S>[] }>,
    )
  }

  /** Whether the record is held: In submission, Voided in submission, or Not found in submission. */
  heldState(uid: string, options: RequestOptions = {}): Promise<HeldState> {
    return this.#http.request('get', `${V1}/${this.segment}/{${this.uidField}}`, {
      ...options,
      path: { [this.uidField]: uid },
    }) as Promise<HeldState>
  }

  #recordPath(): string {
    return `${V1}/{jurisdiction}/transaction-batch/{transactionBatchToken}/${this.segment}/{${this.uidField}}`
  }
}
