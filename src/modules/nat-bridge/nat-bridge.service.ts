// The NAT bridge in the service (issue 19): a NAT file set, sent as a zip, becomes a new transaction
// batch of the caller's RTO, as `vetrs nat import` makes one from the command line: read, map (codes
// translated through the reference data in force), the upload's structural check for every record,
// and the bulk upload. Later, the batch's failed validation results are told as the NAT file, line and
// field they came from, from the zip kept with the batch. Reading and mapping run in a worker thread
// (nat-set-reader.ts). docs/decisions.md, "NAT import in the service (issue 19)". This file: the import;
// the held history it carries forward in held-history.ts, the import's later reads in nat-import-results.service.ts.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { DomainError } from '../../domain/errors.ts'
import { resourceTypes, type ResourceType } from '../../domain/resource-types.ts'
import { createBatch, discardBatch, uploadRecords, type BatchRef, type RecordToUpload } from '../batches/index.ts'
import { currentCodes } from '../reference-data/index.ts'
import { createRecordCheck, type RecordCheck } from '../resources/index.ts'
import * as repo from './nat-bridge.repo.ts'
import { otherOrganisationMessage, plainFieldMessage } from './avetmiss.ts'
import { carryForward, heldHistory } from './held-history.ts'
import { NatSetReader } from './nat-set-reader.ts'
import type { LocateRequest, NatSetCheck, NatSetProblem, NatSetRecord } from './nat-set.ts'
import type { NatImportProgress } from './nat-import-job.repo.ts'
import { valueAt } from './value-at.ts'

/** NAT problems listed in an answer; natProblemCount counts them all. */
export const LISTED_NAT_PROBLEMS = 1000
/** Default bound on what a zip's NAT files hold uncompressed (LIMIT_NAT_FILES_BYTES). */
export const DEFAULT_NAT_FILES_BYTES = 48 * 1024 * 1024
/** Mapped records drawn from the worker at a time; each chunk is checked, then stored while the next is drawn. */
const CHUNK_RECORDS = 1000
/** Records checked between two turns of the event loop. */
const RECORDS_PER_TURN = 250

export interface NatImportOptions {
  /** Most bytes the zip's NAT files may hold uncompressed (default 48 MiB). */
  maxFilesBytes?: number
  /** Told as the import goes: files and lines read, records mapped, records stored. */
  onProgress?(progress: NatImportProgress): void
  /**
   * Awaited once the batch exists, before any record is written: the import's job records it, so a
   * later attempt (after a crash that never reached the discard below) can discard it.
   */
  onBatch?(token: string): Promise<void>
}

/** What a NAT import answers (201), and what GET .../nat-import answers again later. */
export interface NatImportResult {
  transactionBatchToken: string
  jurisdiction: string
  /** The RTO code in every record's UID: the caller's RTO. */
  rtoCode: string
  importedAt: string
  /** The NAT files read, with the names found in the zip and the layout each was read as. */
  files: { fileId: string; file: string; layout?: string }[]
  /** Other files in the zip, not read. */
  ignoredFiles: string[]
  /** Records stored in the batch. */
  recordCount: number
  /** Records stored, by resource type, every type listed. */
  recordsByType: Record<ResourceType, number>
  /** Held enrolments whose history the import carried forward (continuing students). */
  carriedForward?: number
  /** Every NAT problem: lines the reader could not read, values the mapping could not carry, records the upload's check refused. */
  natProblemCount: number
  /** The first LISTED_NAT_PROBLEMS of them, in the order read, map, upload. */
  natProblems: NatSetProblem[]
  /** The NAT checks' findings (contradictions across lines; the records are stored), all counted. */
  natCheckCount?: number
  /** The first LISTED_NAT_PROBLEMS of them, in file and line order. */
  natChecks?: NatSetCheck[]
}

let recordCheck: RecordCheck | undefined

/**
 * Reads and maps the zip, and uploads every record that passes the upload's structural check into a
 * new batch of the caller's RTO under `jurisdiction`. Lines that could not be read or mapped, and
 * records the check refuses, are left out and answered as NAT problems at their file, line and field;
 * the rest is stored, in one transaction, with the zip. A body that is not a readable zip of NAT
 * files, or that gives no record, stores nothing (nat-set-unreadable); NAT files over the bound store
 * nothing (nat-set-too-large); files naming a training organisation other than the caller's RTO store
 * nothing (nat-organisation-mismatch).
 */
export function importNatSet(
  db: Db,
  actor: Actor,
  jurisdiction: string,
  zip: Uint8Array,
  options: NatImportOptions = {},
): Promise<NatImportResult> {
  if (zip.length === 0)
    return Promise.reject(
      new DomainError('nat-set-unreadable', 'The body is empty: send the NAT files as a zip. Nothing was stored.'),
    )
  // Run by the nat-import job: the queue bounds how many run at once, and one RTO's take turns.
  const progress: NatImportProgress = { stage: 'reading', filesRead: 0, linesRead: 0 }
  const tell = (change: NatImportProgress) => {
    Object.assign(progress, change)
    options.onProgress?.({ ...progress })
  }
  return (async () => {
    const set = await NatSetReader.open(
      zip,
      {
        rtoCode: actor.rto,
        datasets: await currentCodes(db),
        maxFilesBytes: options.maxFilesBytes ?? DEFAULT_NAT_FILES_BYTES,
        maxProblems: LISTED_NAT_PROBLEMS,
      },
      (read) => tell(read),
    )
    try {
      const { summary } = set
      tell({ stage: 'storing', recordsMapped: summary.recordCount, recordsStored: 0 })
      if (summary.files.length === 0)
        throw new DomainError(
          'nat-set-unreadable',
          `The zip holds no AVETMISS NAT file (NAT00010.txt ... NAT00130.txt)${
            summary.ignoredFiles.length > 0 ? `, only ${summary.ignoredFiles.slice(0, 5).join(', ')}` : ''
          }. Nothing was stored.`,
        )
      // Another RTO's files (or an SMS set up with another code) would add that RTO's data to the
      // caller's under new UIDs: refused before a batch exists.
      if (summary.otherOrganisations.length > 0)
        throw new DomainError(
          'nat-organisation-mismatch',
          otherOrganisationMessage(summary.otherOrganisations, actor.rto),
        )
      if (summary.recordCount === 0) throw noRecord(summary.problemCount, summary.problems)

      // Read before the upload's transaction (which, on the embedded database, holds its one connection).
      const held = await heldHistory(db, actor.rto, set)
      const batch = await createBatch(db, actor, jurisdiction)
      const ref: BatchRef = { token: batch.transactionBatchToken, jurisdiction }
      try {
        await options.onBatch?.(ref.token)
        const refused: Refused[] = []
        const uploadedTypes: ResourceType[] = []
        const carried = { count: 0 }
        const chunks = checkedChunks(
          set,
          uploadedTypes,
          refused,
          (chunk) => carryForward(held, chunk, carried),
          (n) => tell({ recordsStored: (progress.recordsStored ?? 0) + n }),
        )
        const outcomes = await uploadRecords(db, actor, ref, chunks)
        const uploadProblems = await problemsOfRefused(set, refused, LISTED_NAT_PROBLEMS - summary.problems.length)
        const natProblemCount = summary.problemCount + refused.reduce((sum, record) => sum + record.failures.length, 0)
        if (outcomes.length === 0) throw noRecord(natProblemCount, [...summary.problems, ...uploadProblems])
        // The batch is new: a record is created by its first upload, and a later one with the same UID replaces it.
        const recordsByType = Object.fromEntries(resourceTypes.map((type) => [type, 0])) as Record<ResourceType, number>
        outcomes.forEach((outcome, index) => {
          if (outcome === 'created') recordsByType[uploadedTypes[index]!]++
        })
        const result: NatImportResult = {
          transactionBatchToken: ref.token,
          jurisdiction,
          rtoCode: actor.rto,
          importedAt: new Date().toISOString(),
          files: summary.files,
          ignoredFiles: summary.ignoredFiles,
          recordCount: Object.values(recordsByType).reduce((sum, n) => sum + n, 0),
          recordsByType,
          carriedForward: carried.count,
          natProblemCount,
          natProblems: [...summary.problems, ...uploadProblems],
          natCheckCount: summary.checkCount,
          natChecks: summary.checks,
        }
        await repo.insertNatImport(db, {
          rto: actor.rto,
          token: ref.token,
          rtoCode: actor.rto,
          zip,
          summary: result,
          clientId: actor.clientId,
        })
        tell({ stage: 'done', recordsStored: result.recordCount })
        return result
      } catch (error) {
        // Nothing of a failed import stays: the batch (and the import row with it) goes.
        await discardBatch(db, actor, ref).catch(() => {})
        throw error
      }
    } finally {
      await set.close()
    }
  })()
}

/** A mapped record the upload's structural check refused: left out, told as NAT problems. */
interface Refused {
  resourceType: string
  uid: string
  /** Each failure, with the value refused (as found in the record) when there is one. */
  failures: { accessPath: string; message: string; value?: unknown }[]
}

/**
 * The worker's records, a chunk at a time, each checked as its upload would check it; those that pass
 * go on to the upload (their types noted in order), those refused are noted and left out.
 */
async function* checkedChunks(
  set: NatSetReader,
  uploadedTypes: ResourceType[],
  refused: Refused[],
  merge: (chunk: NatSetRecord[]) => void,
  checked: (count: number) => void,
): AsyncGenerator<RecordToUpload[]> {
  recordCheck ??= createRecordCheck()
  const check = recordCheck
  for (;;) {
    const chunk = await set.nextRecords(CHUNK_RECORDS)
    if (chunk.length === 0) return
    merge(chunk)
    const uploads: RecordToUpload[] = []
    for (const [index, { resourceType, uid, record }] of chunk.entries()) {
      if (index % RECORDS_PER_TURN === 0 && index > 0) await new Promise((resolve) => setImmediate(resolve))
      const type = resourceType as ResourceType
      const outcome = check(type, record)
      if (outcome.failures) {
        refused.push({
          resourceType,
          uid,
          failures: outcome.failures.map((failure) => ({ ...failure, value: valueAt(record, failure.accessPath) })),
        })
        continue
      }
      const { body } = outcome
      uploadedTypes.push(type)
      uploads.push({
        resourceType: type,
        resourceUID: String(body[outcome.uidField]),
        changeTrackingIdentifier:
          typeof body.changeTrackingIdentifier === 'string' ? body.changeTrackingIdentifier : null,
        isVoided: body.isVoided === true,
        body,
      })
    }
    checked(uploads.length)
    if (uploads.length > 0) yield uploads
  }
}

/** The first `room` failures of refused records, each at the NAT place of its field. */
async function problemsOfRefused(set: NatSetReader, refused: Refused[], room: number): Promise<NatSetProblem[]> {
  const failures = refused
    .flatMap((record) => record.failures.map((failure) => ({ record, failure })))
    .slice(0, Math.max(0, room))
  const requests: LocateRequest[] = failures.map(({ record, failure }) => ({
    resourceType: record.resourceType,
    uid: record.uid,
    paths: [failure.accessPath],
  }))
  const places = await set.locate(requests)
  return failures.map(({ record, failure }, index) => {
    const nat = places[index] ?? []
    const label = nat[0]?.fieldLabel ?? failure.accessPath.replace(/^\$\.?/, '')
    const value = failure.value
    return {
      stage: 'upload' as const,
      nat,
      ...(value === undefined ? {} : { value: typeof value === 'string' ? value : JSON.stringify(value) }),
      message: plainFieldMessage(failure.message, label, value),
      correctiveAction: `In the SMS, correct ${label}${nat[0] ? ` (${nat[0].text})` : ''}, and export the NAT files again.`,
      resourceType: record.resourceType,
      resourceUID: record.uid,
      accessPath: failure.accessPath,
    }
  })
}

function noRecord(problemCount: number, problems: readonly NatSetProblem[]): DomainError {
  const first = problems
    .slice(0, 3)
    .map((problem) => `${problem.nat[0]?.text ?? problem.stage}: ${problem.message}`)
    .join('; ')
  return new DomainError(
    'nat-set-unreadable',
    `The NAT files gave no record to report (${problemCount} NAT ${problemCount === 1 ? 'problem' : 'problems'}${
      first ? `; ${first}` : ''
    }). Nothing was stored.`,
  )
}
