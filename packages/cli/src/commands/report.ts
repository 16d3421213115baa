// vetrs upload|validate|submit|void: standard workflows 1 to 3 a step at a time, on the current batch
// unless another is named.
import type { Command } from 'commander'
import {
  BulkUploadError,
  eachBounded,
  kindOf,
  ServiceError,
  type OnProgress,
  type ResourceRecord,
  type UploadManyOutcome,
  type VoidedReason,
} from '@vetrs/client'
import { Context } from '../context.ts'
import { ExitCode } from '../output.ts'
import { readRecords } from '../records.ts'
import { printValidationResults } from '../results.ts'

export function registerReporting(program: Command): void {
  program
    .command('upload <paths...>')
    .description('upload records (JSON files, or folders of them) into the current batch, or a new one')
    .option('--batch <token>', 'upload into this NotSubmitted batch')
    .option('--new', 'start a new batch even if there is a current one')
    .option('--concurrency <n>', 'uploads in flight at once, where the service has no bulk upload', '4')
    .action(
      async (paths: string[], options: { batch?: string; new?: boolean; concurrency: string }, command: Command) => {
        const context = await Context.of(command)
        const records = await readRecords(paths)
        const client = context.client()
        const jurisdiction = context.jurisdiction
        let token = options.batch ?? (options.new ? undefined : context.config.currentBatch?.[jurisdiction])
        if (
          token &&
          !options.batch &&
          (await client.batch(jurisdiction, token).then(
            (b) => b.status !== 'NotSubmitted',
            () => true,
          ))
        )
          token = undefined
        token ??= (await client.createBatch(jurisdiction)).transactionBatchToken
        await context.setCurrentBatch(token)
        context.output.say(`Batch ${token} (${jurisdiction})`)
        const bar = context.output.progress('upload', records.length)
        const progress = (done: number) => bar.update(done)
        // The bulk upload where the service offers it (an extension of the API, issue 19).
        const bulk = (await client.bulkUploadOffer()) !== undefined
        const failures = bulk
          ? await uploadKeepingRefusals(
              records,
              (some, onProgress) => client.uploadMany(jurisdiction, token, some, { onProgress }),
              progress,
            )
          : await uploadOneByOne(
              records,
              Number(options.concurrency) || 4,
              (record) => client.upload(jurisdiction, token, record),
              progress,
            )
        bar.stop()
        const uploaded = records.length - failures.length
        context.output.result({ transactionBatchToken: token, uploaded, bulk, failures }, () => {
          context.output.say(`${uploaded} of ${records.length} records uploaded.`)
          for (const failure of failures) {
            context.output.say(`  ${failure.resourceType} ${failure.uid} was not stored:`)
            for (const e of failure.errors) context.output.say(`    ${e.accessPath}: ${e.message}`)
          }
          if (failures.length === 0) context.output.say('Next: `vetrs validate --wait`, then `vetrs submit`.')
        })
        if (failures.length > 0) process.exitCode = ExitCode.serviceError
      },
    )

  program
    .command('validate [token]')
    .description('request validation of the batch (the current one by default)')
    .option('--wait', 'wait until it is Validated and print the failed results')
    .action(async (token: string | undefined, options: { wait?: boolean }, command: Command) => {
      const context = await Context.of(command)
      const client = context.client()
      const batch = context.batch(token)
      const jurisdiction = context.jurisdiction
      if (!options.wait) {
        const status = await client.requestValidation(jurisdiction, batch)
        return context.output.result(status, () =>
          context.output.say(
            `Validation of ${batch}: ${status.validationStatus}. Run \`vetrs validate --wait\` to wait for the results.`,
          ),
        )
      }
      const {
        validation: status,
        blocking,
        nonBlocking,
      } = await client.validate(jurisdiction, batch, {
        onProgress: (e) => {
          if (e.phase === 'validate' && e.status !== 'Validated') context.output.warn(`  ${e.status}...`)
        },
      })
      const results = [...blocking, ...nonBlocking].flatMap((group) => group.results)
      context.output.result({ status, results }, () => {
        context.output.say(`Batch ${batch}: ${status.validationStatus}`)
        printValidationResults(context.output, blocking, nonBlocking)
        context.output.say(
          blocking.length > 0
            ? 'Fix the records named, upload them again (`vetrs upload <files>`), and validate again.'
            : 'Nothing blocks: `vetrs submit` to submit the batch.',
        )
      })
      if (blocking.length > 0) process.exitCode = ExitCode.validationFailures
    })

  program
    .command('submit [token]')
    .description('submit the batch (the current one by default), validating it first if it needs it')
    .option(
      '--acknowledge-dropped <n>',
      "submit a batch that a NAT import (`vetrs nat import`, the service's or the console's) left without the n NAT lines it could not read or map (n as the refusal states it)",
    )
    .action(async (token: string | undefined, options: { acknowledgeDropped?: string }, command: Command) => {
      const context = await Context.of(command)
      const client = context.client()
      const batch = context.batch(token)
      const jurisdiction = context.jurisdiction
      // Nothing submitted by mistake: a NAT import that dropped lines left a batch that lacks them.
      const notice = context.importNotice(batch)
      if (notice && options.acknowledgeDropped !== String(notice.dropped)) {
        context.output.result({ submitted: null, dropped: notice.dropped, first: notice.first }, () => {
          context.output.say(
            `Not submitted: batch ${batch} was made by \`vetrs nat import\`, which left out ${notice.dropped} NAT ${notice.dropped === 1 ? 'problem' : 'problems'} (lines it could not read or map), so the held data would lack what they name:`,
          )
          for (const line of notice.first) context.output.say(`  ${line}`)
          if (notice.dropped > notice.first.length)
            context.output.say(
              `  ... and ${notice.dropped - notice.first.length} more (\`vetrs nat import --csv\` lists them all)`,
            )
          context.output.say(
            `Correct the NAT files and import again, or submit without them: \`vetrs submit --acknowledge-dropped ${notice.dropped}\`.`,
          )
        })
        process.exitCode = ExitCode.validationFailures
        return
      }
      const status = await client.validationStatus(jurisdiction, batch).catch(() => undefined)
      let grouped: Awaited<ReturnType<typeof client.groupedValidationResults>>
      if (status?.validationStatus !== 'Validated' || !status.isCurrent) {
        context.output.warn('Validating first...')
        grouped = await client.validate(jurisdiction, batch)
      } else grouped = await client.groupedValidationResults(jurisdiction, batch)
      const { blocking, nonBlocking } = grouped
      if (blocking.length > 0) {
        const results = [...blocking, ...nonBlocking].flatMap((group) => group.results)
        context.output.result({ submitted: null, results }, () => {
          printValidationResults(context.output, blocking, nonBlocking)
          context.output.say('Not submitted: fix the blocking failures first.')
        })
        process.exitCode = ExitCode.validationFailures
        return
      }
      // The service checks the same for a batch its own NAT import made (409 nat-lines-dropped).
      const acknowledgeDropped = /^\d{1,9}$/.test(options.acknowledgeDropped ?? '')
        ? Number(options.acknowledgeDropped)
        : undefined
      const submitted = await client.submitBatch(jurisdiction, batch, { acknowledgeDropped })
      await context.setCurrentBatch(undefined)
      if (notice) await context.setImportNotice(batch, undefined)
      await client.awaitReconciliation(jurisdiction, batch) // so `vetrs reconcile` straight after sees it
      context.output.result(submitted, () =>
        context.output.say(
          `Submitted batch ${batch}: ${submitted.numberOfRecordsSubmitted} records are now held (${submitted.submittedAt}).`,
        ),
      )
    })

  program
    .command('void <paths...>')
    .description('void held records (JSON files as last submitted), with the records that depend on them')
    .option('--reason <reason>', 'remove_duplicate_record or remove_orphaned_record', 'remove_duplicate_record')
    .option('--orphans <paths...>', 'dependent records to void as orphans (remove_orphaned_record)')
    .option('--repointed <paths...>', 'dependent records that stay, re-uploaded as given (pointing elsewhere)')
    .action(
      async (
        paths: string[],
        options: { reason: VoidedReason; orphans?: string[]; repointed?: string[] },
        command: Command,
      ) => {
        const context = await Context.of(command)
        const outcome = await context.client().voidRecords(
          {
            records: await readRecords(paths),
            reason: options.reason,
            orphans: options.orphans ? await readRecords(options.orphans) : [],
            repointed: options.repointed ? await readRecords(options.repointed) : [],
          },
          { jurisdiction: context.jurisdiction },
        )
        context.output.result(outcome, () => {
          if (outcome.submitted) {
            context.output.table(outcome.states, ['resourceType', 'resourceUID', 'stateInSubmission'])
          } else {
            printValidationResults(context.output, outcome.blocking, outcome.nonBlocking)
            context.output.say(
              `Not voided: batch ${outcome.transactionBatchToken} has blocking failures (a dependent record left pointing at a voided one?). Add it with --orphans or --repointed.`,
            )
          }
        })
        if (!outcome.submitted) process.exitCode = ExitCode.validationFailures
      },
    )
}

interface UploadFailure {
  resourceType: string
  uid: string
  status: number
  errors: { accessPath: string; message: string }[]
}

/**
 * Uploads every record the service accepts and lists the ones it refuses, as one upload per record
 * would, but through the SDK's uploadMany (the bulk upload where the service offers it). A bulk
 * request is all or nothing: when one is refused, its refused records are noted and the rest of the
 * records from that request on are sent again, until every record is stored or refused. Each round
 * refuses at least one record, so it ends.
 */
async function uploadKeepingRefusals(
  records: readonly ResourceRecord[],
  uploadMany: (records: readonly ResourceRecord[], onProgress: OnProgress) => Promise<UploadManyOutcome>,
  progress: (done: number) => void,
): Promise<UploadFailure[]> {
  const failures: UploadFailure[] = []
  let remaining = [...records]
  let settled = 0 // records stored or refused in earlier rounds
  while (remaining.length > 0) {
    try {
      await uploadMany(remaining, (event) => {
        if (event.phase === 'upload') progress(settled + event.done)
      })
      return failures
    } catch (error) {
      if (!(error instanceof BulkUploadError) || error.refused.length === 0) throw error
      const refused = new Set(error.refused.map((r) => r.index))
      for (const r of error.refused) {
        const { resourceType, uid } = kindOf(remaining[r.index]!)
        failures.push({
          resourceType,
          uid,
          status: error.status,
          // The bulk upload's paths are into the NDJSON line ($.record.familyName); a single upload's into the record.
          errors: r.errors.map((e) => ({ ...e, accessPath: e.accessPath.replace(/^\$\.record/, '$') })),
        })
      }
      settled += error.stored + refused.size
      remaining = remaining.slice(error.stored).filter((_, i) => !refused.has(i + error.stored))
      progress(settled)
    }
  }
  return failures
}

/** Without the bulk upload (a service that does not offer it): one request per record, the refused listed. */
async function uploadOneByOne(
  records: readonly ResourceRecord[],
  concurrency: number,
  upload: (record: ResourceRecord) => Promise<unknown>,
  progress: (done: number) => void,
): Promise<UploadFailure[]> {
  const failures: UploadFailure[] = []
  let done = 0
  await eachBounded(records, concurrency, async (record: ResourceRecord) => {
    try {
      await upload(record)
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 400) throw error
      const { resourceType, uid } = kindOf(record)
      failures.push({ resourceType, uid, status: error.status, errors: error.problem?.errors ?? [] })
    }
    progress(++done)
  })
  return failures
}
