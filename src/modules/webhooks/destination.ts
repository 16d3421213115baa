// Where a webhook may be delivered (SSRF): in production, never to loopback, private (RFC 1918,
// fc00::/7), link-local (169.254/16, fe80::/10), unspecified, CGNAT (100.64/10), multicast, broadcast
// or other reserved addresses, whether the URL names the address or a host name resolves to it, and
// only over https; unless the operator allows private addresses (WEBHOOK_ALLOW_PRIVATE), some blocks
// (WEBHOOK_ALLOWED_CIDRS) or http (WEBHOOK_ALLOW_HTTP). Checked when an endpoint is registered or
// changed, and again at every delivery, where the connection is made to the very address that was
// checked (lookupChecked, given to the HTTP request as its `lookup`), so a name that resolves to a
// public address when checked and to a private one a moment later (DNS rebinding) reaches nothing.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { promisify } from 'node:util'
import { BlockList, isIP } from 'node:net'

export interface DestinationPolicy {
  allowPrivate: boolean
  allowHttp: boolean
  /** CIDR blocks accepted even though they are in a refused range. */
  allowedCidrs: readonly string[]
}

/** A URL or an address the policy refuses: the message says why, for the caller (never logged with a secret). */
export class DestinationRefused extends Error {}

const REFUSED_V4 = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared (CGNAT, RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'reserved (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'reserved (documentation)'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'reserved (benchmarking)'],
  ['198.51.100.0', 24, 'reserved (documentation)'],
  ['203.0.113.0', 24, 'reserved (documentation)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (including broadcast)'],
] as const
const REFUSED_V6 = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'NAT64 (may reach any IPv4 address)'],
  ['100::', 64, 'reserved (discard)'],
  ['2001:db8::', 32, 'reserved (documentation)'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
] as const

const refusedRanges: { list: BlockList; kind: string }[] = REFUSED_V4.map(([network, prefix, kind]) => {
  const list = new BlockList()
  list.addSubnet(network, prefix, 'ipv4')
  return { list, kind: kind as string }
}).concat(
  REFUSED_V6.map(([network, prefix, kind]): { list: BlockList; kind: string } => {
    const list = new BlockList()
    list.addSubnet(network, prefix, 'ipv6')
    return { list, kind }
  }),
)

function allowListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList()
  for (const cidr of cidrs) {
    const [network = '', bits = ''] = cidr.split('/')
    list.addSubnet(network, Number(bits), isIP(network) === 6 ? 'ipv6' : 'ipv4')
  }
  return list
}

/** `::ffff:10.0.0.1` and `::ffff:a00:1` are 10.0.0.1: checked as the IPv4 address they carry. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (isIP(address) === 4) return { address, family: 'ipv4' }
  const mapped = /^::ffff:(?:0:)?(.+)$/i.exec(address)
  if (mapped) {
    const rest = mapped[1]!
    if (isIP(rest) === 4) return { address: rest, family: 'ipv4' }
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest)
    if (hex) {
      const high = Number.parseInt(hex[1]!, 16)
      const low = Number.parseInt(hex[2]!, 16)
      return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' }
    }
  }
  return { address, family: 'ipv6' }
}

/** Why the policy refuses the address, or undefined when it may be reached. */
export function refusalOf(address: string, policy: DestinationPolicy): string | undefined {
  if (policy.allowPrivate) return undefined
  const { address: plain, family } = unmapped(address)
  const range = refusedRanges.find(({ list }) => list.check(plain, family))
  if (range === undefined) return undefined
  if (policy.allowedCidrs.length > 0 && allowListOf(policy.allowedCidrs).check(plain, family)) return undefined
  return `${address} is a ${range.kind} address`
}

const lookupAll = promisify(dnsLookup)

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
}

/**
 * What can be checked of a URL without resolving it: its scheme, no credentials in it, and the address
 * when the URL names one (a connection to an address written in the URL makes no lookup). Throws
 * DestinationRefused saying why.
 */
export function checkUrl(url: URL, policy: DestinationPolicy): void {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw new DestinationRefused(
      policy.allowHttp ? 'the URL must be http or https' : 'the URL must be https (http is not accepted here)',
    )
  if (url.username !== '' || url.password !== '')
    throw new DestinationRefused('the URL must not carry a user or password')
  const host = hostOf(url)
  if (isIP(host) !== 0) {
    const refusal = refusalOf(host, policy)
    if (refusal) throw new DestinationRefused(`refused: ${refusal}`)
  }
}

/**
 * Checks a URL as an endpoint (registration, change): checkUrl, and every address its host name
 * resolves to. A name that does not resolve is refused too where private addresses are (the
 * endpoint would fail every delivery).
 */
export async function checkDestination(url: URL, policy: DestinationPolicy): Promise<void> {
  checkUrl(url, policy)
  const host = hostOf(url)
  if (isIP(host) !== 0 || policy.allowPrivate) return
  let addresses: LookupAddress[]
  try {
    addresses = (await lookupAll(host, { all: true, verbatim: true })) as LookupAddress[]
  } catch {
    throw new DestinationRefused(`refused: the host name ${host} does not resolve`)
  }
  for (const { address } of addresses) {
    const refusal = refusalOf(address, policy)
    if (refusal) throw new DestinationRefused(`refused: ${host} resolves to ${refusal}`)
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for net.connect (through http.request): resolves the name, refuses the connection if any
 * address it resolves to is refused, and hands the connection the addresses it checked, so the socket
 * goes where the check looked.
 */
export function lookupChecked(policy: DestinationPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, '')
      for (const { address } of addresses) {
        const refusal = refusalOf(address, policy)
        if (refusal)
          return callback(
            Object.assign(new DestinationRefused(`refused: ${hostname} resolves to ${refusal}`), { code: 'EREFUSED' }),
            '',
          )
      }
      if (options.all) return callback(null, addresses)
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '')
      callback(null, first.address, first.family)
    })
  }
}
