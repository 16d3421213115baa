// A NAT import's later reads: its answer, file names, the submit's dropped-lines check, its findings at NAT places.
import type { Db, Tx } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { ConflictError, NotFoundError } from '../../domain/errors.ts'
import type { Page, PageQuery } from '../../domain/page.ts'
import { requireBatch, type BatchRef } from '../batches/index.ts'
import { currentCodes } from '../reference-data/index.ts'
import { listFailedResults, type ValidationResult } from '../validation/index.ts'
import type { SubmitRequest } from '../holdings/index.ts'
import * as repo from './nat-bridge.repo.ts'
import { DEFAULT_NAT_FILES_BYTES, type NatImportOptions, type NatImportResult } from './nat-bridge.service.ts'
import { NatSetReader, oneSetAtATime } from './nat-set-reader.ts'
import type { NatPlace } from './nat-set.ts'

/**
 * A failed validation result of a NAT-imported batch, with where its record and fields came from, and
 * its record, message and corrective action in the files' terms (identifiers and field names, no UID).
 */
export type NatFinding = ValidationResult & {
  nat: NatPlace[]
  natRecord?: string
  natValue?: string
  natMessage?: string
  natCorrectiveAction?: string
}

/** The caller's NAT import that made this batch; 404 for a batch not made by one. */
const notMadeByNatImport = (token: string) =>
  new NotFoundError(
    `Transaction batch ${token} was not made by a NAT import (POST .../nat-import): its records have no NAT lines to name.`,
  )

async function requireNatImport(db: Db, actor: Actor, ref: BatchRef): Promise<repo.NatImportRow> {
  await requireBatch(db, actor, ref)
  const imported = await repo.findNatImport(db, actor.rto, ref.token)
  if (!imported) throw notMadeByNatImport(ref.token)
  return imported
}

/** What the import that made the batch answered; undefined for a batch no NAT import made. */
export async function natImportSummaryOf(db: Db, actor: Actor, ref: BatchRef): Promise<NatImportResult | undefined> {
  await requireBatch(db, actor, ref)
  return (await repo.findNatImportSummary(db, actor.rto, ref.token)) as NatImportResult | undefined
}

/**
 * Nothing submitted by mistake (issue 31 item 7), a condition on submit (holdings' SubmitCondition,
 * run in the submit's transaction): a batch whose NAT import left NAT problems out (lines it could
 * not read or map, records refused) lacks what they name, and is submitted only when the request
 * acknowledges their number. A batch no NAT import made, or one that left nothing out, passes.
 */
export async function droppedLinesAcknowledged(
  tx: Tx,
  actor: Actor,
  token: string,
  request: SubmitRequest,
): Promise<void> {
  const count = await repo.findNatProblemCount(tx, actor.rto, token)
  if (!count || request.acknowledgeDropped === count) return
  const problems = `${count} NAT ${count === 1 ? 'problem' : 'problems'}`
  const given =
    request.acknowledgeDropped === undefined
      ? ''
      : `acknowledgeDropped=${request.acknowledgeDropped} is not the count. `
  throw new ConflictError(
    'nat-lines-dropped',
    `${given}The NAT import that made batch ${token} left out ${problems} (lines it could not read or map, records refused; GET .../transaction-batch/${token}/nat-import lists them), so the held data would lack what ${count === 1 ? 'it names' : 'they name'}. Correct the NAT files and import them again, or submit without ${count === 1 ? 'it' : 'them'}: POST .../submit?acknowledgeDropped=${count} (vetrs submit --acknowledge-dropped ${count}).`,
    { droppedCount: count },
  )
}

/** The NAT file names each of the caller's batches was imported from; a batch no NAT import made is absent. */
export function natFileNamesOf(db: Db, actor: Actor, tokens: string[]): Promise<Map<string, string[]>> {
  return repo.natFileNamesOf(db, actor.rto, tokens)
}

/** What the import that made the batch answered. */
export async function natImportOf(db: Db, actor: Actor, ref: BatchRef): Promise<NatImportResult> {
  const summary = await natImportSummaryOf(db, actor, ref)
  if (!summary) throw notMadeByNatImport(ref.token)
  return summary
}

/**
 * A page of the batch's failed validation results (those of failed-validation-results, in its order),
 * each with the NAT places of its record's fields (its access paths; none named: the record's line).
 * A result about a record the zip did not give (a held record a set rule names) has no place. The
 * places are derived again from the zip kept with the batch: read and mapped in a worker, as at import.
 */
export async function natFindings(
  db: Db,
  actor: Actor,
  ref: BatchRef,
  page: PageQuery,
  options: NatImportOptions = {},
): Promise<Page<NatFinding>> {
  const imported = await requireNatImport(db, actor, ref)
  const results = await listFailedResults(db, actor, ref, page)
  if (results.results.length === 0) return { ...results, results: [] }
  const { places, descriptions } = await oneSetAtATime(async () => {
    const set = await NatSetReader.open(imported.zip, {
      rtoCode: imported.rtoCode,
      datasets: await currentCodes(db),
      maxFilesBytes: options.maxFilesBytes ?? DEFAULT_NAT_FILES_BYTES,
      maxProblems: 0,
    })
    try {
      const places = await set.locate(
        results.results.map((result) => ({
          resourceType: result.resourceType,
          uid: result.resourceUID,
          paths: result.accessPath,
        })),
      )
      const descriptions = await set.describe(
        results.results.map((result) => ({
          resourceType: result.resourceType,
          uid: result.resourceUID,
          texts: [result.message, result.correctiveAction],
          ...(result.accessPath[0] === undefined ? {} : { path: result.accessPath[0] }),
        })),
      )
      return { places, descriptions }
    } finally {
      await set.close()
    }
  })
  return {
    ...results,
    results: results.results.map((result, index) => {
      const description = descriptions[index]
      return {
        ...result,
        nat: places[index] ?? [],
        ...(description?.record === undefined ? {} : { natRecord: description.record }),
        ...(description?.value === undefined ? {} : { natValue: description.value }),
        ...(description ? { natMessage: description.texts[0], natCorrectiveAction: description.texts[1] } : {}),
      }
    }),
  }
}
