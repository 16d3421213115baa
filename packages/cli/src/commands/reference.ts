// vetrs reference-data sync: keeps a local copy of a dataset in a folder, by the watermark rules.
import type { Command } from 'commander'
import { FileReferenceStore } from '@vetrs/client'
import { Context } from '../context.ts'

export function registerReferenceData(program: Command): void {
  const referenceData = program.command('reference-data').description('reference and classification data')
  referenceData
    .command('sync <dataset>')
    .description(
      'bring the local copy of a dataset up to date (classification/country and classification/language for the classifications)',
    )
    .requiredOption('--out <dir>', 'folder holding the local copy and its watermark')
    .action(async (dataset: string, options: { out: string }, command: Command) => {
      const context = await Context.of(command)
      const store = new FileReferenceStore(options.out)
      const bar = context.output.progress(dataset, 1)
      const outcome = await context.client().syncReferenceData(dataset, store, {
        onProgress: (e) => {
          if (e.phase === 'sync') bar.update(e.pageNumber, e.numberOfPages)
        },
      })
      bar.stop()
      const held = Object.keys(await store.records(dataset)).length
      context.output.result({ ...outcome, held }, () => {
        context.output.say(
          `${dataset}: ${outcome.records} changed records in ${outcome.pages} pages since ${outcome.changedSince}; ${held} records held in ${options.out}; watermark ${outcome.watermark}`,
        )
      })
    })
}
