// vetrs batch create|list|show|discard: transaction batches of the jurisdiction in force.
import type { Command } from 'commander'
import { collect } from '@vetrs/client'
import { Context } from '../context.ts'

export function registerBatch(program: Command): void {
  const batch = program.command('batch').description('transaction batches')

  batch
    .command('create')
    .description('create a batch and make it the current one')
    .action(async (_options, command: Command) => {
      const context = await Context.of(command)
      const created = await context.client().createBatch(context.jurisdiction)
      await context.setCurrentBatch(created.transactionBatchToken)
      context.output.result(created, () =>
        context.output.say(
          `Created batch ${created.transactionBatchToken} (${created.jurisdiction}, ${created.status}); it is now the current batch`,
        ),
      )
    })

  batch
    .command('list')
    .description("the RTO's batches, newest first")
    .action(async (_options, command: Command) => {
      const context = await Context.of(command)
      const batches = await collect(context.client().batches(context.jurisdiction))
      const current = context.config.currentBatch?.[context.jurisdiction]
      context.output.result(batches, () => {
        if (batches.length === 0) return context.output.say(`No batches in ${context.jurisdiction}.`)
        context.output.table(
          batches.map((b) => ({ ...b, current: b.transactionBatchToken === current ? '*' : '' })),
          ['current', 'transactionBatchToken', 'status', 'createdAt', 'submittedAt'],
        )
      })
    })

  batch
    .command('show [token]')
    .description('one batch with its record counts (the current batch by default)')
    .action(async (token: string | undefined, _options, command: Command) => {
      const context = await Context.of(command)
      const found = await context.client().batch(context.jurisdiction, context.batch(token))
      context.output.result(found, () => {
        context.output.say(
          `Batch ${found.transactionBatchToken} (${found.jurisdiction}): ${found.status}, ${found.totalRecords} records`,
        )
        context.output.table(
          Object.entries(found.recordCounts).map(([resourceType, count]) => ({ resourceType, count })),
          ['resourceType', 'count'],
        )
      })
    })

  batch
    .command('discard [token]')
    .description('discard a NotSubmitted batch and everything in it')
    .action(async (token: string | undefined, _options, command: Command) => {
      const context = await Context.of(command)
      const target = context.batch(token)
      await context.client().discardBatch(context.jurisdiction, target)
      if (context.config.currentBatch?.[context.jurisdiction] === target) await context.setCurrentBatch(undefined)
      context.output.result({ discarded: target }, () => context.output.say(`Discarded batch ${target}`))
    })
}
