// vetrs nat export: the RTO's held dataset (every type, the latest version of each held, not voided
// record, read through the held records extension as one state) written as a NAT 8.0 file set, so an
// RTO can hand its data to AVETMISS tools or another SMS, and import it again to the same held state.
import {
  NatWriteError,
  resourcesToNat,
  writeNatFolder,
  type ResourceEntry,
  type ResourceProblem,
} from '@vetrs/avetmiss'
import { UsageError } from '@vetrs/client'
import type { Context } from '../context.ts'
import { ExitCode } from '../output.ts'
import { readOrganisation, type Organisation } from './organisation.ts'
import { codeTranslatorFromService } from './reference-codes.ts'

export interface NatExportOptions {
  out: string
  /** The RTO's code, written as every line's training organisation identifier. */
  rto?: string
  /** NAT00010 details: a NAT00010 file, or a JSON object of its fields. */
  organisation?: string
}

/** What `--json` prints. */
export interface NatExportOutcome {
  out: string
  rtoCode: string
  /** When the RTO last submitted before the read: the state of the held dataset written. */
  latestSubmissionAt: string | null
  records: number
  /** Lines written per NAT file. */
  lines: Record<string, number>
  files: string[]
  /** Whether NAT00010 was written (only with training organisation details). */
  organisationWritten: boolean
  /** What could not be written as it is, by resource and field (the set is still written). */
  problems: ResourceProblem[]
}

export async function natExport(context: Context, options: NatExportOptions): Promise<void> {
  const { output } = context
  const organisation = options.organisation ? await readOrganisation(options.organisation) : undefined
  const rtoCode = options.rto ?? organisation?.trainingOrganisationIdentifier
  if (!rtoCode)
    throw new UsageError(
      'no RTO code: give --rto <code>, or --organisation <file> (a NAT00010 file, or JSON of its fields) stating the training organisation identifier',
    )
  const client = context.client()
  const reading = output.progress('held', 8)
  let typesRead = 0
  const dataset = await client.heldDataset({
    onPage: (page) => {
      if (page.numberOfResults !== undefined && page.read >= page.numberOfResults) reading.update(++typesRead)
    },
  })
  reading.stop()
  const codes = await codeTranslatorFromService(client)
  // The held records are the bodies as uploaded, in the API's shapes, which the package restates.
  const entries = dataset.records.map(
    ({ resourceType, record }) => ({ resourceType, record }) as unknown as ResourceEntry,
  )
  const { fileSet, problems } = resourcesToNat(entries, {
    rtoCode,
    codes,
    ...(organisation ? { trainingOrganisation: withoutIdentifier(organisation) } : {}),
  })
  let files: string[]
  try {
    files = await writeNatFolder(options.out, fileSet)
  } catch (error) {
    if (!(error instanceof NatWriteError)) throw error
    output.warn(`error: nothing written: ${error.problems.length} held values do not fit their NAT fields`)
    for (const problem of error.problems)
      output.warn(
        `  ${problem.file} record ${problem.line} ${problem.field ?? ''} "${problem.value ?? ''}": ${problem.message}`,
      )
    process.exitCode = ExitCode.validationFailures
    return
  }
  const outcome: NatExportOutcome = {
    out: options.out,
    rtoCode,
    latestSubmissionAt: dataset.latestSubmissionAt,
    records: dataset.records.length,
    lines: Object.fromEntries(
      Object.entries(fileSet)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([fileId, lines]) => [fileId, lines.length]),
    ),
    files,
    organisationWritten: organisation !== undefined,
    problems,
  }
  if (!organisation)
    output.warn(
      'NAT00010 not written: no training organisation details were given (--organisation <NAT00010 file or JSON>); AVETMISS requires the file, so add it before lodging the set.',
    )
  output.result(outcome, () => {
    output.say(
      `Wrote ${files.length} NAT files to ${options.out} from ${outcome.records} held records (as of the submission at ${outcome.latestSubmissionAt ?? 'never'}).`,
    )
    output.table(
      Object.entries(outcome.lines).map(([file, lines]) => ({ file, lines })),
      ['file', 'lines'],
    )
    if (problems.length > 0) {
      output.say()
      output.say(`${problems.length} held values could not be written as they are:`)
      output.table(
        problems.map((p) => ({ resource: p.resourceType, uid: p.resourceUID, field: p.field, message: p.message })),
        ['resource', 'uid', 'field', 'message'],
      )
    }
  })
}

/** The identifier comes from the RTO code given (resourcesToNat writes it), so the two cannot disagree. */
function withoutIdentifier(organisation: Organisation): Organisation {
  const { trainingOrganisationIdentifier: _, ...rest } = organisation
  return rest as Organisation
}
