// vetrs nat import: a NAT file set reported through the service in one command. Read the set, translate
// its codes through the service's reference data, map it to the eight resources, upload them into a
// new batch (bulk), validate, and tell every finding as the NAT file, line and field it came from.
//
// A set with lines that could not be read or mapped is still uploaded and validated, so one run shows
// every problem, the files' and the service's; it is never submitted: a submission would report the
// RTO's activity without those lines (docs/decisions.md, "NAT bridge: import and export").
import {
  mapClientChunks,
  type NatCheckFinding,
  type NatProblem,
  type NatReadResult,
  type NatResourceChunk,
  NatSetChecker,
  DEFAULT_CHUNK_LINES,
  otherOrganisationMessage,
  uidsIn,
} from '@vetrs/avetmiss'
import { UsageError, type SubmitResult, type UploadManyOutcome, type ValidationStatus, type Vetrs } from '@vetrs/client'
import type { Context } from '../context.ts'
import { ExitCode } from '../output.ts'
import {
  checkFinding,
  organisationFinding,
  problemFinding,
  refusalFindings,
  validationFinding,
  whereOf,
  type Finding,
} from './findings.ts'
import { readNatSet } from './read-set.ts'
import { codeTranslatorFromService } from './reference-codes.ts'
import { printFindings, writeCsvReport } from './report.ts'
import { type ChunkedUpload, uploadInChunks } from './upload-chunks.ts'

export interface NatImportOptions {
  /** The RTO's code, when given: it must be the RTO the client acts for. */
  rto?: string
  /** Write the findings to this CSV file too. */
  csv?: string
  /** Submit when nothing blocks. */
  submit?: boolean
}

/** What `--json` prints. */
export interface NatImportOutcome {
  jurisdiction: string
  rtoCode: string
  files: string[]
  ignoredFiles: string[]
  /** Problems of the reader and the mapping, all counted (the reader keeps the first 1000 it finds). */
  natProblemCount: number
  records: number
  recordsByType: Record<string, number>
  transactionBatchToken: string | null
  upload: Omit<UploadManyOutcome, 'transactionBatchToken'> | null
  validation: { status: ValidationStatus; blocking: number; nonBlocking: number } | null
  findings: Finding[]
  /** Enrolments already held whose held lifecycle history (and a program enrolment's first commencement) was carried forward. */
  carriedForward: number
  submitted: SubmitResult | null
  /** Why nothing was uploaded, when the set was refused before upload (another RTO's training organisation identifier). */
  refused: string | null
}

export async function natImport(context: Context, path: string, options: NatImportOptions): Promise<void> {
  const { output } = context
  const read = await readNatSet(path)
  if (read.recordCount === 0) return nothingRead(context, path, read)
  const client = context.client()
  // The RTO is the one the client acts for (every request is scoped to it), never the files' say.
  const rtoCode = (await client.caller()).rto
  if (options.rto !== undefined && options.rto !== rtoCode)
    throw new UsageError(`--rto ${options.rto}, but you are logged in as RTO ${rtoCode}: log in as ${options.rto}`)
  const jurisdiction = context.jurisdiction
  output.say(`Read ${read.recordCount} records from ${read.files.length} NAT files in ${path}.`)
  for (const { file, layout } of read.files) output.say(`  ${file}: ${layout}`)

  // Another organisation's files would add its students and activity to this RTO's held data under new
  // UIDs: refused before anything is uploaded, every file naming another code listed.
  const others = read.organisations.others(rtoCode)
  if (others.length > 0) {
    const refused: NatImportOutcome = {
      ...emptyOutcome(jurisdiction, rtoCode, read),
      findings: others.map((other) => organisationFinding(other, rtoCode)),
      refused: otherOrganisationMessage(others, rtoCode),
    }
    if (options.csv) await writeCsvReport(options.csv, refused.findings)
    output.result(refused, () => printOutcome(context, refused, read, options))
    process.exitCode = ExitCode.validationFailures
    return
  }

  const reading = output.progress('codes', 1)
  const codes = await codeTranslatorFromService(client, (done, total) => reading.update(done, total))
  reading.stop()
  // The client files' lines are read again a chunk of whole clients at a time, each chunk checked (the
  // NAT checks, what NCVER's validation software finds across lines) and mapped, then let go.
  const checker = new NatSetChecker(read)
  const clientChunks = checker.checking(read.clientChunks(DEFAULT_CHUNK_LINES))
  const outcome: NatImportOutcome = { ...emptyOutcome(jurisdiction, rtoCode, read) }
  const chunks = mapClientChunks(clientChunks, read, { rtoCode, codes })
  let checks: NatCheckFinding[] | undefined
  await report(
    context,
    client,
    chunks,
    read.recordCount,
    outcome,
    options,
    (problems) => [
      ...read.problems.map((problem) => problemFinding('read', problem)),
      ...problems.map((problem) => problemFinding('map', problem)),
      // Contradictions across lines that NCVER's validation software finds, before anything is submitted;
      // known once every chunk is checked (an upload refused part way: the rest are checked unmapped).
      ...(checks ?? []).map(checkFinding),
    ],
    () => {
      for (let next = clientChunks.next(); !next.done; next = clientChunks.next());
      checks = checker.findings()
    },
  )
  if (options.csv) await writeCsvReport(options.csv, outcome.findings)
  output.result(outcome, () => printOutcome(context, outcome, read, options))
  process.exitCode = exitCodeOf(outcome)
}

function emptyOutcome(jurisdiction: string, rtoCode: string, read: NatReadResult): NatImportOutcome {
  return {
    jurisdiction,
    rtoCode,
    files: read.files.map((file) => file.file),
    ignoredFiles: read.ignoredFiles,
    natProblemCount: read.problemCount,
    records: 0,
    recordsByType: {},
    transactionBatchToken: null,
    upload: null,
    validation: null,
    findings: [],
    carriedForward: 0,
    submitted: null,
    refused: null,
  }
}

/**
 * No line of the set could be read (every file empty, release 7.0 files, every line broken): the
 * reader's problems say why, without the service, and the command fails (exit 3), never "nothing to
 * report" with success.
 */
function nothingRead(context: Context, path: string, read: NatReadResult): void {
  const { output } = context
  const findings = read.problems.map((problem) => problemFinding('read', problem))
  output.result(
    {
      files: read.files.map(({ file, layout }) => ({ file, layout })),
      ignoredFiles: read.ignoredFiles,
      natProblemCount: read.problemCount,
      records: 0,
      findings,
      submitted: null,
    },
    () => {
      output.say(`Read no record from the ${read.files.length} NAT files in ${path}.`)
      for (const { file, layout } of read.files) output.say(`  ${file}: ${layout}`)
      output.say()
      printFindings(output, findings)
      output.say()
      output.say('Nothing was imported: correct what is named above and import again.')
    },
  )
  process.exitCode = ExitCode.validationFailures
}

/**
 * Batch, map and upload chunk by chunk, validate, and submit when asked and nothing blocks; each step's
 * outcome goes into `outcome`. `natFindings` makes the NAT findings once the mapping's problems are known.
 */
async function report(
  context: Context,
  client: Vetrs,
  chunks: Generator<NatResourceChunk, NatProblem[], void>,
  lines: number,
  outcome: NatImportOutcome,
  options: NatImportOptions,
  natFindings: (mappingProblems: readonly NatProblem[]) => Finding[],
  allChecked: () => void,
): Promise<void> {
  const { output } = context
  const jurisdiction = context.jurisdiction
  const previous = context.config.currentBatch?.[jurisdiction]
  const token = (await client.createBatch(jurisdiction)).transactionBatchToken
  outcome.transactionBatchToken = token
  await context.setCurrentBatch(token)
  // A batch that lacks lines the files have is submitted only when the user says, by number, that
  // they know what it lacks (`vetrs submit --acknowledge-dropped <n>`): said before anything is
  // uploaded from what the reader found, and again once the mapping's problems are known.
  const notice = async () => {
    const dropped = outcome.findings.filter((finding) => finding.stage === 'read' || finding.stage === 'map')
    if (outcome.natProblemCount > 0)
      await context.setImportNotice(token, {
        dropped: outcome.natProblemCount,
        first: dropped.slice(0, 5).map((finding) => `${whereOf(finding)}: ${finding.message}`),
      })
  }
  outcome.findings = natFindings([])
  await notice()
  const discard = async () => {
    // Nothing of the refused request was stored: the empty batch goes, and the current batch is what it was.
    await client.discardBatch(jurisdiction, token).catch(() => {})
    await context.setImportNotice(token, undefined)
    await context.setCurrentBatch(previous)
    outcome.transactionBatchToken = null
  }

  // The total is the lines read until the mapping says how many records they make (about as many).
  const uploading = output.progress('upload', lines)
  let uploaded: ChunkedUpload
  try {
    uploaded = await uploadInChunks(client, jurisdiction, token, chunks, {
      onUploaded: (done) => uploading.update(done, Math.max(lines, done)),
    })
  } catch (error) {
    await discard()
    throw error
  } finally {
    uploading.stop()
  }
  allChecked()
  outcome.records = uploaded.records
  outcome.recordsByType = uploaded.recordsByType
  outcome.carriedForward = uploaded.carried
  outcome.natProblemCount += uploaded.problems.length
  outcome.findings = natFindings(uploaded.problems)
  output.say(
    `Mapped ${outcome.records} records for RTO ${outcome.rtoCode} (${Object.entries(outcome.recordsByType)
      .map(([type, count]) => `${type} ${count}`)
      .join(', ')}); ${outcome.natProblemCount} NAT ${outcome.natProblemCount === 1 ? 'problem' : 'problems'}.`,
  )
  if (uploaded.carried > 0)
    output.say(
      `Carried forward the held lifecycle history of ${uploaded.carried} ${uploaded.carried === 1 ? 'enrolment' : 'enrolments'} reported before (continuing students).`,
    )
  if (uploaded.refused) {
    const { error, records } = uploaded.refused
    await discard()
    const { origins, terms } = uploaded.uploaded.indexesOf(error.refused.map((refused) => records[refused.index]!.uid))
    outcome.findings.push(
      ...error.refused.flatMap((refused) => refusalFindings(origins, refused, records[refused.index]!, terms)),
    )
    return
  }
  if (outcome.records === 0) {
    // Nothing mapped (every line had a problem): no batch is left behind.
    await discard()
    return
  }
  outcome.upload = uploaded.upload ?? null
  await notice()

  const validated = await client.validate(jurisdiction, token, {
    onProgress: (event) => {
      if (event.phase === 'validate' && event.status !== 'Validated') output.warn(`  validation ${event.status}...`)
    },
  })
  outcome.validation = {
    status: validated.validation,
    blocking: validated.blocking.length,
    nonBlocking: validated.nonBlocking.length,
  }
  const results = [...validated.blocking, ...validated.nonBlocking].flatMap((group) => group.results)
  // The records the results are about and name, inflated from the compressed chunks that hold them.
  const { origins, terms, bodies } = uploaded.uploaded.indexesOf(
    results.flatMap((result) => [result.resourceUID, ...uidsIn(result.message), ...uidsIn(result.correctiveAction)]),
  )
  for (const result of results) outcome.findings.push(validationFinding(origins, result, terms, bodies))

  if (options.submit && !blocks(outcome)) {
    outcome.submitted = await client.submitBatch(jurisdiction, token)
    await context.setCurrentBatch(undefined)
    await context.setImportNotice(token, undefined)
    await client.awaitReconciliation(jurisdiction, token) // so reconciliation and export see it straight after
  }
}

function printOutcome(context: Context, outcome: NatImportOutcome, read: NatReadResult, options: NatImportOptions) {
  const { output } = context
  if (outcome.transactionBatchToken && outcome.upload) {
    const { created, replaced } = outcome.upload
    output.say(
      `Batch ${outcome.transactionBatchToken} (${outcome.jurisdiction}): ${outcome.upload.recordCount} records uploaded${
        created === undefined ? '' : ` (${created} new to the batch, ${replaced} replaced)`
      }.`,
    )
  }
  if (outcome.validation) {
    const { status, blocking, nonBlocking } = outcome.validation
    output.say(
      `Validation ${status.validationStatus}: ${blocking} blocking (Error) and ${nonBlocking} non-blocking (Warning) concerns.`,
    )
  }
  if (read.problemsTruncated)
    output.say(`The reader listed the first ${read.problems.length} of its ${read.problemCount} problems.`)
  if (outcome.findings.length > 0) {
    output.say()
    printFindings(output, outcome.findings)
    output.say()
  }
  if (options.csv) output.say(`Report written to ${options.csv}.`)
  output.say(nextStep(outcome, options))
}

function nextStep(outcome: NatImportOutcome, options: NatImportOptions): string {
  if (outcome.refused) return outcome.refused
  if (outcome.submitted)
    return `Submitted batch ${outcome.transactionBatchToken}: ${outcome.submitted.numberOfRecordsSubmitted} records are now held.`
  if (blocks(outcome))
    return 'Not submitted: correct the NAT lines named and import again (the same files replace the same records).'
  if (outcome.records === 0) return 'Nothing to report: the files gave no record.'
  return options.submit
    ? 'Nothing blocks.'
    : 'Nothing blocks: `vetrs submit` submits this batch, or import again with --submit.'
}

/** Whether anything stops a submission: a NAT problem, a refused record, or a blocking validation result. */
function blocks(outcome: NatImportOutcome): boolean {
  return outcome.findings.some((finding) => finding.level === 'Error')
}

function exitCodeOf(outcome: NatImportOutcome): number {
  if (outcome.findings.some((finding) => finding.stage === 'upload')) return ExitCode.serviceError
  return blocks(outcome) ? ExitCode.validationFailures : ExitCode.ok
}
