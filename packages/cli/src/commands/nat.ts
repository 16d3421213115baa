// vetrs nat import|export: the AVETMISS NAT bridge. An RTO whose student management system writes NAT
// files reports them through the service with one command, and reads its held dataset back as NAT.
import type { Command } from 'commander'
import { Context } from '../context.ts'
import { natExport, type NatExportOptions } from '../nat/export.ts'
import { natImport, type NatImportOptions } from '../nat/import.ts'

export function registerNat(program: Command): void {
  const nat = program.command('nat').description('AVETMISS 8.0 NAT files: report them, or export the held dataset')
  nat
    .command('import <path>')
    .description(
      'report a NAT file set (a folder or a zip): map it, upload it into a new batch, validate, and print every failure as its NAT file, line and field',
    )
    .option('--rto <code>', "the RTO's code, checked against the RTO you are logged in as (the default)")
    .option('--csv <file>', 'also write every finding to this CSV file')
    .option('--submit', 'submit the batch when nothing blocks')
    .action(async (path: string, options: NatImportOptions, command: Command) => {
      await natImport(await Context.of(command), path, options)
    })

  nat
    .command('export')
    .description(
      "write the RTO's held dataset (the latest version of every held, not voided record, every jurisdiction) as a NAT 8.0 file set",
    )
    .requiredOption('--out <folder>', 'folder to write NAT00010.txt ... NAT00130.txt into (created if need be)')
    .option('--rto <code>', "the RTO's code, written as every line's training organisation identifier")
    .option(
      '--organisation <file>',
      "the training organisation for NAT00010: a NAT00010 file, or a JSON object of its fields (its identifier is the RTO's code)",
    )
    .action(async (options: NatExportOptions, command: Command) => {
      await natExport(await Context.of(command), options)
    })
}
