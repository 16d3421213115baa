// The client's version, read from its package.json (one folder up from src/ in the repository and
// from dist/ in the published package), and the User-Agent every request carries.
import { readFileSync } from 'node:fs'
import { UsageError } from './errors.ts'

/** This package's version (@vetrs/client). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** The application using the client (the SMS), named at the end of the User-Agent, as stripe-node's appInfo. */
export interface AppInfo {
  /** A product name: letters, digits and !#$%&'*+-.^_`|~ (e.g. AcmeSMS). */
  name: string
  version?: string
  /** Where the data collector can find out about it or its vendor. */
  url?: string
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const COMMENT = /^[\x20-\x27\x2a-\x5b\x5d-\x7e]+$/

/** `vetrs-client/<version> node/<node version>`, then `<name>/<version> (+<url>)` for the application. */
export function userAgent(appInfo?: AppInfo): string {
  const base = `vetrs-client/${VERSION} node/${process.versions.node}`
  if (!appInfo) return base
  const { name, version, url } = appInfo
  if (!TOKEN.test(name))
    throw new UsageError(`appInfo.name ${JSON.stringify(name)} is not a product name (RFC 9110 token)`)
  if (version !== undefined && !TOKEN.test(version))
    throw new UsageError(`appInfo.version ${JSON.stringify(version)} is not a product version (RFC 9110 token)`)
  if (url !== undefined && !COMMENT.test(url))
    throw new UsageError(`appInfo.url ${JSON.stringify(url)} has characters a User-Agent cannot carry`)
  return `${base} ${name}${version === undefined ? '' : `/${version}`}${url === undefined ? '' : ` (+${url})`}`
}
