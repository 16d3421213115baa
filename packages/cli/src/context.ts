// What every command needs: the output, the configuration file and the settings in force, and an
// SDK client built from them.
import type { Command } from 'commander'
import { UsageError, Vetrs, type Jurisdiction } from '@vetrs/client'
import {
  configPath,
  type ImportNotice,
  readConfig,
  resolve,
  writeConfig,
  type CliConfig,
  type Resolved,
} from './config.ts'
import { Output } from './output.ts'
import { CLI_APP_INFO } from './version.ts'

export interface GlobalOptions {
  json?: boolean
  config?: string
  jurisdiction?: string
}

export class Context {
  readonly output: Output
  readonly configFile: string
  config: CliConfig
  readonly #jurisdictionOption: string | undefined

  private constructor(output: Output, configFile: string, config: CliConfig, jurisdiction: string | undefined) {
    this.output = output
    this.configFile = configFile
    this.config = config
    this.#jurisdictionOption = jurisdiction
  }

  static async of(command: Command): Promise<Context> {
    const options = command.optsWithGlobals<GlobalOptions>()
    const file = configPath(options.config)
    return new Context(new Output(Boolean(options.json)), file, await readConfig(file), options.jurisdiction)
  }

  get settings(): Resolved {
    return resolve(this.config, this.#jurisdictionOption)
  }

  get jurisdiction(): Jurisdiction {
    return this.settings.jurisdiction
  }

  client(): Vetrs {
    return this.clientFor(this.settings)
  }

  /** An SDK client that names the CLI in its User-Agent and says when it retries. */
  clientFor({ baseUrl, clientId, clientSecret }: { baseUrl: string; clientId: string; clientSecret: string }): Vetrs {
    return new Vetrs({
      baseUrl,
      credentials: { clientId, clientSecret },
      appInfo: CLI_APP_INFO,
      onRetry: (notice) =>
        this.output.warn(
          `  ${notice.method} ${notice.path}: ${notice.cause === 'network' ? 'no answer' : notice.cause === 'timeout' ? 'no answer in time' : notice.cause}; retrying in ${notice.delayMs} ms`,
        ),
    })
  }

  /** The batch named, else the current one of the jurisdiction. */
  batch(explicit?: string): string {
    const token = explicit ?? this.config.currentBatch?.[this.jurisdiction]
    if (!token)
      throw new UsageError(
        `no batch given and no current batch for ${this.jurisdiction}: run \`vetrs upload <files>\` or \`vetrs batch create\` first`,
      )
    return token
  }

  async setCurrentBatch(token: string | undefined): Promise<void> {
    const currentBatch = { ...this.config.currentBatch }
    if (token) currentBatch[this.jurisdiction] = token
    else delete currentBatch[this.jurisdiction]
    this.config = { ...this.config, currentBatch }
    await writeConfig(this.configFile, this.config)
  }

  /** What an import left out of the batch, when one did. */
  importNotice(token: string): ImportNotice | undefined {
    return this.config.importNotices?.[token]
  }

  /** Notes (or, with undefined, forgets) what an import left out of the batch. */
  async setImportNotice(token: string, notice: ImportNotice | undefined): Promise<void> {
    const importNotices = { ...this.config.importNotices }
    if (notice) importNotices[token] = notice
    else delete importNotices[token]
    this.config = { ...this.config, importNotices }
    await writeConfig(this.configFile, this.config)
  }

  async save(config: CliConfig): Promise<void> {
    this.config = config
    await writeConfig(this.configFile, config)
  }
}
