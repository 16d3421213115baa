// Where the CLI finds the service and its credentials: the environment first (VETRS_URL,
// VETRS_CLIENT_ID, VETRS_CLIENT_SECRET, VETRS_JURISDICTION), then the file `vetrs login` wrote
// ($VETRS_CONFIG, else $XDG_CONFIG_HOME/vetrs/config.json, else ~/.config/vetrs/config.json),
// readable by its owner only since it holds a secret. It also remembers the current batch per
// jurisdiction, so `upload`, `validate` and `submit` work on the same one without repeating it.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { UsageError, type Jurisdiction } from '@vetrs/client'

export interface CliConfig {
  baseUrl?: string
  clientId?: string
  clientSecret?: string
  jurisdiction?: Jurisdiction
  /** The batch last created by `upload`, per jurisdiction. */
  currentBatch?: Partial<Record<Jurisdiction, string>>
  /**
   * Batches a `vetrs nat import` left lacking lines it could not read or map, by token: `vetrs submit`
   * submits one only when told, by number, what it leaves out (`--acknowledge-dropped <n>`).
   */
  importNotices?: Record<string, ImportNotice>
}

/** What a NAT import left out of a batch: how many NAT problems, and the first of them as text. */
export interface ImportNotice {
  dropped: number
  first: string[]
}

export const JURISDICTIONS: Jurisdiction[] = ['NAT', 'NSW', 'VIC', 'QLD', 'WA', 'SA', 'TAS', 'ACT', 'NT']

export function configPath(explicit?: string): string {
  if (explicit) return explicit
  if (process.env.VETRS_CONFIG) return process.env.VETRS_CONFIG
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config')
  return join(base, 'vetrs', 'config.json')
}

export async function readConfig(path: string): Promise<CliConfig> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CliConfig
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new UsageError(`cannot read the configuration ${path}: ${(error as Error).message}`)
  }
}

export async function writeConfig(path: string, config: CliConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const aside = `${path}.${process.pid}.tmp`
  await writeFile(aside, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
  await chmod(aside, 0o600)
  await rename(aside, path)
}

export interface Resolved {
  baseUrl: string
  clientId: string
  clientSecret: string
  jurisdiction: Jurisdiction
}

/** The settings in force: environment over the file; a missing one is a usage error naming how to give it. */
export function resolve(config: CliConfig, jurisdictionOption?: string): Resolved {
  const baseUrl = (process.env.VETRS_URL || undefined) ?? config.baseUrl
  const clientId = (process.env.VETRS_CLIENT_ID || undefined) ?? config.clientId
  const clientSecret = (process.env.VETRS_CLIENT_SECRET || undefined) ?? config.clientSecret
  const jurisdiction = jurisdictionOf(
    jurisdictionOption ?? (process.env.VETRS_JURISDICTION || undefined) ?? config.jurisdiction ?? 'NSW',
  )
  if (!baseUrl || !clientId || !clientSecret) {
    throw new UsageError(
      'not logged in: run `vetrs login --url <service> --client-id <id> --client-secret <secret>`, or set VETRS_URL, VETRS_CLIENT_ID and VETRS_CLIENT_SECRET',
    )
  }
  return { baseUrl, clientId, clientSecret, jurisdiction }
}

export function jurisdictionOf(value: string): Jurisdiction {
  const upper = value.toUpperCase() as Jurisdiction
  if (!JURISDICTIONS.includes(upper))
    throw new UsageError(`unknown jurisdiction ${value}: one of ${JURISDICTIONS.join(', ')}`)
  return upper
}
