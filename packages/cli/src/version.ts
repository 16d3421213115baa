// The CLI's version, read from its package.json (one folder up from src/ in the repository and from
// dist/ in the published package), and how it names itself in the User-Agent.
import { readFileSync } from 'node:fs'
import type { AppInfo } from '@vetrs/client'

/** This package's version (@vetrs/cli). */
export const CLI_VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** Appended to the SDK's User-Agent: `vetrs-client/<sdk> node/<node> vetrs-cli/<cli>`. */
export const CLI_APP_INFO: AppInfo = { name: 'vetrs-cli', version: CLI_VERSION }
