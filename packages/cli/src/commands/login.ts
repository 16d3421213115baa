// vetrs login: checks the credentials by obtaining a token, then stores them (and the service URL
// and default jurisdiction) in the configuration file, readable by its owner only.
import type { Command } from 'commander'
import { UsageError } from '@vetrs/client'
import { jurisdictionOf } from '../config.ts'
import { Context } from '../context.ts'

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description(
      'check and store the service URL and client credentials (or use VETRS_URL, VETRS_CLIENT_ID, VETRS_CLIENT_SECRET)',
    )
    .option('--url <url>', 'service root, e.g. http://127.0.0.1:8080')
    .option('--client-id <id>', 'client_id')
    .option(
      '--client-secret <secret>',
      'client_secret (or VETRS_CLIENT_SECRET, which keeps it out of the shell history)',
    )
    .action(async (options: { url?: string; clientId?: string; clientSecret?: string }, command: Command) => {
      const context = await Context.of(command)
      const baseUrl = options.url ?? (process.env.VETRS_URL || undefined) ?? context.config.baseUrl
      const clientId = options.clientId ?? (process.env.VETRS_CLIENT_ID || undefined) ?? context.config.clientId
      const clientSecret =
        options.clientSecret ?? (process.env.VETRS_CLIENT_SECRET || undefined) ?? context.config.clientSecret
      if (!baseUrl || !clientId || !clientSecret)
        throw new UsageError(
          'login needs --url, --client-id and --client-secret (or VETRS_URL, VETRS_CLIENT_ID, VETRS_CLIENT_SECRET)',
        )
      const jurisdictionOption = command.optsWithGlobals<{ jurisdiction?: string }>().jurisdiction
      const jurisdiction = jurisdictionOf(jurisdictionOption ?? context.config.jurisdiction ?? 'NSW')
      await context.clientFor({ baseUrl, clientId, clientSecret }).authenticate()
      await context.save({
        ...context.config,
        baseUrl: baseUrl.replace(/\/+$/, ''),
        clientId,
        clientSecret,
        jurisdiction,
      })
      context.output.result({ baseUrl, clientId, jurisdiction, configFile: context.configFile }, () => {
        context.output.say(
          `Logged in to ${baseUrl} as ${clientId} (jurisdiction ${jurisdiction}); saved in ${context.configFile}`,
        )
      })
    })
}
