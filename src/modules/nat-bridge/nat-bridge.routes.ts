// The NAT import in the service (an extension, not in the specification): POST a zip of NAT files,
// get a new transaction batch of its records and the NAT problems; then read the import again, and the
// batch's failed validation results with the NAT file, line and field of each. What a web console
// calls for an RTO user who has only NAT files. docs/decisions.md, "NAT import in the service (issue 19)".
import Type from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../platform/db/database.ts'
import { actorOf } from '../../platform/auth/authenticate.ts'
import { Scopes } from '../../platform/auth/scopes.ts'
import { problemResponse } from '../../platform/http/openapi.ts'
import { PageQuery } from '../../platform/http/paging.ts'
import { Jurisdiction, Strict } from '../../platform/http/types.ts'
import { BatchParams } from '../batches/index.ts'
import { NatFindingPage, NatImportResult } from './nat-bridge.schemas.ts'
import * as service from './nat-bridge.service.ts'

/** The media types of a zip: the registered one, and what browsers on Windows label a .zip with. */
export const ZIP_MEDIA_TYPES = ['application/zip', 'application/x-zip-compressed'] as const

const tags = ['NAT import (extension)']

export const natBridgeRoutes: FastifyPluginAsyncTypebox<{
  db: Db
  limits: { natZipBytes: number; natFilesBytes: number }
}> = async (app, { db, limits }) => {
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
          `Limits: the zip at most ${MiB(limits.natZipBytes)} on the wire and decoded (LIMIT_NAT_ZIP_BYTES, in place of the request limits: 413 with no body on the wire, 413 BRTS90400 decoded), its NAT files at most ${MiB(limits.natFilesBytes)} uncompressed as the zip states them (LIMIT_NAT_FILES_BYTES; 413 /problems/nat-set-too-large, before anything is inflated). One NAT set is read at a time per service process; a second import waits for the first.`,
          "Nothing is stored (no batch) when the body is empty, not a zip, a damaged zip, holds no NAT file, or gives no record (400 /problems/nat-set-unreadable), when its NAT00010, NAT00020, NAT00120 or NAT00130 lines name a training organisation other than the caller's RTO (400 /problems/nat-organisation-mismatch), or is over a limit (413). Scope vet:report.",
        ].join('\n\n'),
        params: Strict({ jurisdiction: Jurisdiction }),
        consumes: [...ZIP_MEDIA_TYPES],
        body: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'the zip of NAT files' }),
        response: {
          201: NatImportResult,
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
      const result = await service.importNatSet(db, actorOf(request), request.params.jurisdiction, zip, options)
      return reply.code(201).send(result)
    },
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
    async (request) => service.natImportOf(db, actorOf(request), refOf(request.params)),
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
    async (request) => service.natFindings(db, actorOf(request), refOf(request.params), request.query, options),
  )
}
