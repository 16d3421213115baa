// What the batch pages share: a batch's path parameters, its reference for the use cases, and the
// console paths of a batch and of a queued submit.
import { readInput, PagedQuery } from './console-input.ts'
import { rtoPath } from './page-kit.ts'

export type BatchPathParams = { rto: string; jurisdiction: string; token: string }

export const batchRefOf = (params: BatchPathParams) => ({ token: params.token, jurisdiction: params.jurisdiction })
export const batchPath = (params: BatchPathParams) =>
  rtoPath(params.rto, `batches/${encodeURIComponent(params.jurisdiction)}/${encodeURIComponent(params.token)}`)
/** The page a paged list asks for (1 when absent or malformed). */
export const pageOf = (query: unknown) => readInput(PagedQuery, query).page ?? 1
/** Where a queued submit of the RTO is followed. */
export const submitStatusPath = (rto: string, jurisdiction: string, submitId: string) =>
  rtoPath(rto, `submits/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(submitId)}`)
