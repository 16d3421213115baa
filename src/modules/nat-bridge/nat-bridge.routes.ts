// The NAT import in the service (an extension, not in the specification): POST a zip of NAT files,
// get a new transaction batch of its records and the NAT problems; then read the import again, and the
// batch's failed validation results with the NAT file, line and field of each. What a web console
// calls for an RTO user who has only NAT files. docs/decisions.md, "NAT import in the service (issue 19)".
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import type { JobDefinition, Queue } from '../../platform/queue/queue.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { problemTypes } from '../../platform/http/problem.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import { Jurisdiction, Strict } from '../../platform/http/types.ts'
import { BatchParams } from '../batches/index.ts'
import { NatFindingPage, NatImportResult, NatImportStatus } from './nat-bridge.schemas.ts'
import * as results from './nat-import-results.service.ts'
import {
  awaitNatImport,
  type NatImportJobData,
  type NatImportStatus as Status,
  natImportStatus,
  requestNatImport,
} from './nat-import-jobs.ts'

/** The import's status as the API tells it: a failed import's problem as RFC 9457 members. */
function publicStatus({ problem, ...status }: Status) {
  if (!problem) return status
  const type = (problemTypes as Record<string, { status: number; title: string }>)[problem.kind]
  return {
    ...status,
    problem: {
      type: `/problems/${problem.kind}`,
      title: type?.title ?? 'The NAT import failed',
      status: type?.status ?? 500,
      detail: problem.detail,
    },
  }
}

/** The media types of a zip: the registered one, and what browsers on Windows label a .zip with. */
export const ZIP_MEDIA_TYPES = ['application/zip', 'application/x-zip-compressed'] as const

const tags = ['NAT import (extension)']

/** Whether the request asks for an answer now and the work later (RFC 7240 Prefer: respond-async). */
const prefersAsync = (prefer: string | string[] | undefined) =>
  [prefer ?? []]
    .flat()
    .some((value) => value.split(',').some((preference) => preference.trim().toLowerCase() === 'respond-async'))

export const natBridgeRoutes: FastifyPluginAsyncTypebox<{
  db: Db
  queue: Queue
  job: JobDefinition<NatImportJobData>
  limits: { natZipBytes: number; natFilesBytes: number }
}> = async (app, { db, queue, job, limits }) => {
  // This plugin's only body type is a zip: JSON or anything else is 415 here.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([...ZIP_MEDIA_TYPES], { parseAs: 'buffer' }, (_request, body: Buffer, done) =>
    done(null, body),
  )
  const options = { maxFilesBytes: limits.natFilesBytes }
  const MiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`

  app.post(
    '/:jurisdiction/nat-import',
    {
      // The zip is larger than a record: its own limits, on the wire and decoded (platform/http/body-limits.ts).
      bodyLimit: limits.natZipBytes + 1,
      config: {
        scope: Scopes.report,
        checksOwnBody: true,
        bodyLimits: { wireBodyBytes: limits.natZipBytes, decodedBodyBytes: limits.natZipBytes },
        audit: { action: 'nat.import', batchFromAnswer: true },
      },
      schema: {
        tags,
        summary:
          'Import a zip of AVETMISS NAT files into a new transaction batch (extension, not in the specification)',
        description: [
          "An extension for RTOs that have only the AVETMISS 8.0 NAT files their student management system writes (NAT00010 ... NAT00130): the body is those files as a zip (Content-Type application/zip, or application/x-zip-compressed), the same files `vetrs nat import` takes. The service reads them, translates their codes through the reference data in force, maps them to the eight resources (UIDs from natural keys, so importing the same files again gives the same records), checks every record as its upload would, and stores them in a new transaction batch of the caller's RTO under this jurisdiction: one transaction, as a bulk upload.",
          'A line the reader cannot read, a value the mapping cannot carry, or a record the structural check refuses is left out, and answered in natProblems at its NAT file, line and field; the rest is stored. The batch is then validated, submitted or discarded as any batch (POST .../validate, .../submit); GET .../transaction-batch/{token}/nat-import/findings tells its failed validation results as NAT file, line and field. While natProblemCount is not 0 the batch lacks what the problems name: correct the files and import again rather than submit it.',
          `Limits: the zip at most ${MiB(limits.natZipBytes)} on the wire and decoded (LIMIT_NAT_ZIP_BYTES, in place of the request limits: 413 with no body on the wire, 413 BRTS90400 decoded), its NAT files at most ${MiB(limits.natFilesBytes)} uncompressed as the zip states them (LIMIT_NAT_FILES_BYTES; 413 /problems/nat-set-too-large, before anything is inflated). Content that is no text a NAT file is written in (a NUL byte, UTF-16) is 400 /problems/nat-set-unreadable naming the file and line; a file stops being read after 1,000 lines that cannot be records (its other lines counted, one NAT problem each).`,
          "An import is a queued job: one RTO's imports run one at a time, other RTOs' beside them (QUEUE_JOBS_PER_QUEUE a worker process). With `Prefer: respond-async` the answer is 202 at once, with the import's status (NatImportStatus; Location: GET .../{jurisdiction}/nat-import/{importId}) to poll for its progress (files and lines read, records stored) and its end: Completed with the batch and this answer, or Failed with the problem the synchronous answer would have been. Without it, the request waits for the job and answers as before (201 or the problem; after 10 minutes still queued or running, 503 saying where to follow it). The SDK's natImport and the console queue and poll.",
          "Nothing is stored (no batch) when the body is empty, not a zip, a damaged zip, holds no NAT file, or gives no record (400 /problems/nat-set-unreadable), when its NAT00010, NAT00020, NAT00120 or NAT00130 lines name a training organisation other than the caller's RTO (400 /problems/nat-organisation-mismatch), or is over a limit (413). Scope vet:report.",
        ].join('\n\n'),
        params: Strict({ jurisdiction: Jurisdiction }),
        consumes: [...ZIP_MEDIA_TYPES],
        body: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'the zip of NAT files' }),
        response: {
          201: NatImportResult,
          202: NatImportStatus,
          400: problemResponse(
            "type /problems/nat-set-unreadable: the body is empty, not a zip, a damaged zip, holds no NAT file, or gives no record (the detail names the first NAT problems). Type /problems/nat-organisation-mismatch: the files' training organisation identifier is not the caller's RTO (the detail names both codes and where). Or a path parameter refused (structural-validation). Nothing was stored.",
          ),
          413: problemResponse(
            'type /problems/nat-set-too-large: the NAT files hold more than LIMIT_NAT_FILES_BYTES uncompressed (or the zip lists more than 10,000 entries); or the decoded body is above LIMIT_NAT_ZIP_BYTES (errorNumber BRTS90400). A body above that limit on the wire gets 413 with no body. Nothing was stored.',
          ),
          415: problemResponse('The body is not sent as application/zip (or application/x-zip-compressed).'),
        },
      },
    },
    async (request, reply) => {
      const zip = request.body instanceof Uint8Array ? request.body : new Uint8Array(0)
      const actor = actorOf(request)
      const { jurisdiction } = request.params
      const queued = await requestNatImport({ db, queue, job }, actor, jurisdiction, zip, options)
      if (prefersAsync(request.headers.prefer))
        return reply
          .code(202)
          .header('preference-applied', 'respond-async')
          .header('location', `${request.url.split('?')[0]}/${queued.importId}`)
          .send(publicStatus(queued))
      return reply.code(201).send(await awaitNatImport(db, actor, jurisdiction, queued.importId))
    },
  )

  app.get(
    '/:jurisdiction/nat-import/:importId',
    {
      config: { scope: Scopes.report },
      schema: {
        tags,
        summary: 'Where a queued NAT import is: its progress, and its batch or problem once it ends (extension)',
        description:
          "The status of an import POST .../nat-import queued (with Prefer: respond-async, its Location): Queued, Running with its progress (files and lines read, records mapped and stored), Completed with the batch it made and the import's answer (result), or Failed with the problem (nothing was stored). Poll it: a second or two apart is plenty.",
        params: Strict({ jurisdiction: Jurisdiction, importId: Type.String({ maxLength: 36 }) }),
        response: {
          200: NatImportStatus,
          404: problemResponse("type /problems/not-found: no such import of the caller's RTO under this jurisdiction."),
        },
      },
    },
    async (request) =>
      publicStatus(await natImportStatus(db, actorOf(request), request.params.jurisdiction, request.params.importId)),
  )

  const batchPath = '/:jurisdiction/transaction-batch/:transactionBatchToken/nat-import'
  const refOf = (params: { transactionBatchToken: string; jurisdiction: string }) => ({
    token: params.transactionBatchToken,
    jurisdiction: params.jurisdiction,
  })
  const notImported = problemResponse(
    "type /problems/not-found: no such transaction batch for the caller's RTO under this jurisdiction, or the batch was not made by a NAT import.",
  )

  app.get(
    batchPath,
    {
      config: { scope: Scopes.report },
      schema: {
        tags,
        summary: 'What the NAT import that made the batch answered (extension)',
        description:
          'The answer of POST .../nat-import for this batch, as it was given: its files, counts and NAT problems.',
        params: BatchParams,
        response: { 200: NatImportResult, 404: notImported },
      },
    },
    async (request) => results.natImportOf(db, actorOf(request), refOf(request.params)),
  )

  app.get(
    `${batchPath}/findings`,
    {
      config: { scope: Scopes.report, audit: 'validation.results.read' },
      schema: {
        tags,
        summary: "The batch's failed validation results, each at its NAT file, line and field (extension)",
        description:
          "The results of failed-validation-results (the latest completed validation run, the same pages in the same order), each with nat: where the fields its accessPath names came from in the NAT files of the import that made the batch (the record's line when no path has a place of its own; empty for a record the zip did not give, such as held data a set rule names). The places are derived again from the zip kept with the batch, so a page of a large set takes seconds.",
        params: BatchParams,
        querystring: PageQuery,
        response: {
          200: NatFindingPage,
          404: problemResponse(
            'type /problems/not-found: no such batch, or not made by a NAT import; type /problems/no-validation-run: no validation run of the batch has completed yet.',
          ),
        },
      },
    },
    async (request) => results.natFindings(db, actorOf(request), refOf(request.params), request.query, options),
  )
}
