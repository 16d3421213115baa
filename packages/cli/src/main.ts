// vetrs: the VET Reporting Service from the command line. Human-readable output by default, --json
// for scripts; exit codes 0 (done), 1 (the service refused or failed), 2 (usage or configuration),
// 3 (blocking validation or assessment failures).
import { Command, CommanderError } from 'commander'
import { VERSION as SDK_VERSION } from '@vetrs/client'
import { registerLogin } from './commands/login.ts'
import { registerBatch } from './commands/batch.ts'
import { registerReporting } from './commands/report.ts'
import { registerReconcile } from './commands/reconcile.ts'
import { registerDeclarations } from './commands/declare.ts'
import { registerReferenceData } from './commands/reference.ts'
import { registerNat } from './commands/nat.ts'
import { registerWebhooks } from './commands/webhooks.ts'
import { ExitCode, Output, reportFailure } from './output.ts'
import { CLI_VERSION } from './version.ts'

/** What `vetrs --version` prints: the CLI's version, then the SDK's and Node's. */
export const VERSION_TEXT = `vetrs ${CLI_VERSION} (@vetrs/client ${SDK_VERSION}, Node.js ${process.versions.node})`

export async function run(argv: string[]): Promise<number> {
  const program = new Command('vetrs')
    .description('Report vocational training activity to the VET Reporting Service')
    .version(VERSION_TEXT, '-V, --version', 'print the versions of the CLI, the SDK and Node.js')
    .option('--json', 'print JSON for scripts instead of tables')
    .option('-j, --jurisdiction <code>', 'NAT, NSW, VIC, QLD, WA, SA, TAS, ACT or NT (default: from login, else NSW)')
    .option('--config <file>', 'configuration file (default: $VETRS_CONFIG or ~/.config/vetrs/config.json)')
    .exitOverride()
    .showHelpAfterError('(vetrs --help lists the commands)')
  registerLogin(program)
  registerBatch(program)
  registerReporting(program)
  registerReconcile(program)
  registerDeclarations(program)
  registerReferenceData(program)
  registerNat(program)
  registerWebhooks(program)
  for (const command of program.commands) command.exitOverride()

  process.exitCode = ExitCode.ok
  try {
    await program.parseAsync(argv, { from: 'user' })
    return Number(process.exitCode ?? ExitCode.ok)
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage
    }
    return reportFailure(new Output(argv.includes('--json')), error)
  }
}

if (import.meta.main) {
  process.exitCode = await run(process.argv.slice(2))
}
