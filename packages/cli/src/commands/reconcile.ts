// vetrs reconcile: compares the SMS's records of a period (JSON files, or a file of UIDs one per line)
// with what the service holds.
import { readFile, stat } from 'node:fs/promises'
import type { Command } from 'commander'
import { kindOf, kindOfType, UsageError, type LocalRecord, type SearchQuery } from '@vetrs/client'
import { Context } from '../context.ts'
import { readRecords } from '../records.ts'

export function registerReconcile(program: Command): void {
  program
    .command('reconcile <paths...>')
    .description('compare your records of a reporting period with what the service holds')
    .requiredOption('--type <resourceType>', 'Student, SubjectEnrolment, ProgramEnrolment, ... (one type per run)')
    .requiredOption('--period <period>', 'reporting period {CalendarYear}{Quarter}, e.g. 202604')
    .action(async (paths: string[], options: { type: string; period: string }, command: Command) => {
      const context = await Context.of(command)
      const resourceType = kindOfType(options.type).resourceType
      if (resourceType === 'DeliveryLocation') throw new UsageError('reconciliation does not cover DeliveryLocation')
      const records = await localRecords(paths, resourceType)
      const outcome = await context.client().reconcile({
        resourceType: resourceType as SearchQuery['resourceType'],
        reportingPeriod: options.period,
        records,
      })
      context.output.result(outcome, () => {
        context.output.say(
          `${resourceType} in ${options.period}: ${outcome.matched.length} matched, ${outcome.versionDiffers.length} with another version held, ${outcome.notHeld.length} not held, ${outcome.heldOnly.length} held but not in your list.`,
        )
        if (outcome.versionDiffers.length > 0) {
          context.output.say('\nAnother version held:')
          context.output.table(
            outcome.versionDiffers.map((d) => ({
              uid: d.held.resourceUID,
              yours: d.local.changeTrackingIdentifier,
              held: d.held.changeTrackingIdentifier,
            })),
            ['uid', 'yours', 'held'],
          )
        }
        if (outcome.notHeld.length > 0) {
          context.output.say('\nNot held for the period:')
          context.output.table(
            outcome.notHeld.map((m) => ({ uid: m.resourceUID })),
            ['uid'],
          )
        }
        if (outcome.heldOnly.length > 0) {
          context.output.say('\nHeld but not in your list:')
          context.output.table(
            outcome.heldOnly.map((h) => ({
              uid: h.resourceUID,
              changeTrackingIdentifier: h.changeTrackingIdentifier,
              studentActivityDate: h.studentActivityDate,
            })),
            ['uid', 'changeTrackingIdentifier', 'studentActivityDate'],
          )
        }
      })
    })
}

/** Records of the type from JSON files, or UIDs from a text file, one per line. */
async function localRecords(paths: string[], resourceType: string): Promise<LocalRecord[]> {
  const text =
    paths.length === 1 && !paths[0]!.endsWith('.json') && (await stat(paths[0]!).catch(() => undefined))?.isFile()
  if (text) {
    return (await readFile(paths[0]!, 'utf8'))
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .map((resourceUID) => ({ resourceUID }))
  }
  return (await readRecords(paths))
    .filter((record) => kindOf(record).resourceType === resourceType)
    .map((record) => {
      const { uid } = kindOf(record)
      const cti = (record as { changeTrackingIdentifier?: string | null }).changeTrackingIdentifier
      return { resourceUID: uid, ...(cti === undefined ? {} : { changeTrackingIdentifier: cti }) }
    })
}
