// Request body parsers: JSON for the API, form encoding for the token endpoint. Both decode bytes as
// strict UTF-8: a body with invalid UTF-8 (overlong forms, encoded surrogates, stray bytes, truncated
// sequences) is refused, never stored with replacement characters. A charset other than UTF-8 is 415.
//  - JSON: parsed with prototype-poisoning protection (secure-json-parse, as Fastify's own parser).
//    A zero-length body sent with Content-Type: application/json counts as no body (many HTTP clients
//    send that for POSTs that carry nothing); whitespace alone, or a byte order mark, is not JSON
//    (RFC 8259 section 8.1: a JSON text sent over a network carries no BOM). A number JSON cannot
//    represent exactly enough to keep (1e-400 read as 0, 1e400 as Infinity) is replaced by a marker
//    that the string rules report with its access path.
//  - Form: the token request. Values are percent-decoded strictly; a repeated name gives an array,
//    which the route's schema then refuses.
//  - NDJSON (application/x-ndjson): only where a route plugin installs it (the bulk upload), in place
//    of the others. The body becomes its lines, each still text: a line that is not JSON is that
//    line's failure, reported with the others, not the whole request's.
import secureJson from 'secure-json-parse'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { DomainError } from '../../domain/errors.ts'
import { OutOfRangeNumber } from '../schema/strings.ts'
import { HttpRequestError } from './problem.ts'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

// Only a number written with an exponent, or a fraction with hundreds of leading zeros, can round to
// zero; the reviver that checks numbers against their source text costs time, so it runs only when
// the text may hold one (a false alarm, the pattern inside a string, just takes the slower path). The
// pattern is anchored on what precedes a number inside an object or array (':', ',' or '['), which the
// regular expression engine finds quickly; a body that is a bare number is refused anyway. A number
// too large for a double needs no source text: it parses as Infinity, which the string rules refuse.
const MAYBE_OUT_OF_RANGE = /[:,[]\s*-?(?:\d+(?:\.\d*)?[eE]|0\.0{300})/

function checkRange(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value
  const mantissa = context.source.split(/[eE]/)[0] ?? ''
  if (!Number.isFinite(value) || (value === 0 && /[1-9]/.test(mantissa))) return new OutOfRangeNumber(context.source)
  return value
}

function charsetOf(request: FastifyRequest): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(request.headers['content-type'] ?? '')
  return match?.[1]?.toLowerCase()
}

function decodeText(request: FastifyRequest, body: Buffer): string {
  const charset = charsetOf(request)
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpRequestError(
      'unsupported-media-type',
      `charset ${charset} is not supported; send the body as UTF-8 (charset=utf-8, or no charset).`,
    )
  }
  const text = decodeUtf8(body)
  if (text === undefined)
    throw new HttpRequestError('malformed-body', 'The body is not valid UTF-8; send it encoded as UTF-8.')
  return text
}

/** Bytes as strict UTF-8 text, or undefined when they are not valid UTF-8 (a BOM is kept, not dropped). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** One form-urlencoded part ('+' is a space), decoded strictly: invalid percent-encoding is refused. */
export function formDecode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '))
  } catch {
    throw new HttpRequestError('malformed-body', 'The form body has invalid percent-encoding or is not UTF-8.')
  }
}

export function parseJsonText(text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) {
    throw new HttpRequestError(
      'malformed-json',
      'The body starts with a byte order mark (U+FEFF); send JSON without one.',
    )
  }
  try {
    const reviver = MAYBE_OUT_OF_RANGE.test(text) ? checkRange : undefined
    return secureJson.parse(text, reviver as never, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const detail = /forbidden prototype|constructor/i.test(String((error as Error).message))
      ? 'The body contains a forbidden __proto__ or constructor.prototype property.'
      : 'The body is not valid JSON.'
    throw new HttpRequestError('malformed-json', detail)
  }
}

/** Strict form decoding (application/x-www-form-urlencoded): invalid percent-encoding is refused. */
export function parseFormText(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null)
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    const name = formDecode(equals < 0 ? pair : pair.slice(0, equals))
    const value = equals < 0 ? '' : formDecode(pair.slice(equals + 1))
    const earlier = fields[name]
    fields[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value]
  }
  return { ...fields }
}

/** The NDJSON media type the bulk upload takes. */
export const NDJSON = 'application/x-ndjson'

/** One line of an NDJSON body, as text (no line break), with its 1-based number in the body. */
export interface NdjsonLine {
  number: number
  text: string
}

/** An NDJSON body: its non-empty lines in order. Only a plugin that installs the NDJSON parser gets one. */
export class NdjsonBody {
  readonly lines: NdjsonLine[]
  constructor(lines: NdjsonLine[]) {
    this.lines = lines
  }
}

/**
 * Splits NDJSON text into its lines: LF or CRLF between lines, a final line break optional. Empty lines
 * are skipped (the NDJSON specification lets a parser ignore them) but counted, so line numbers are
 * those an editor shows. More than maxLines non-empty lines is refused before any line is parsed.
 */
export function ndjsonLines(text: string, maxLines: number): NdjsonLine[] {
  const lines: NdjsonLine[] = []
  let number = 0
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start)
    const stop = end < 0 ? text.length : end
    number++
    const line =
      text.charCodeAt(stop - 1) === 13 && stop > start ? text.slice(start, stop - 1) : text.slice(start, stop)
    if (line.length > 0) {
      if (lines.length === maxLines) {
        throw new DomainError(
          'too-many-records',
          `The body has more than ${maxLines} lines; one request takes at most ${maxLines} records. Nothing was stored; split the records over several requests.`,
        )
      }
      lines.push({ number, text: line })
    }
    if (end < 0) break
    start = end + 1
  }
  return lines
}

/**
 * Within the calling plugin only (Fastify encapsulates parsers): NDJSON replaces every other body
 * type, so JSON, forms and anything else are 415 there. Strict UTF-8, as the other parsers.
 */
export function installNdjsonParser(app: FastifyInstance, options: { maxLines: number }): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(NDJSON, { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    try {
      done(null, new NdjsonBody(ndjsonLines(decodeText(request, body), options.maxLines)))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}

export function installBodyParsers(app: FastifyInstance): void {
  // JSON and forms only: Fastify's text/plain parser would hand a route a string, which its schema
  // then refuses with a confusing "must be object"; an unsupported type is 415 (docs/decisions.md).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    try {
      const text = decodeText(request, body)
      done(null, text.length === 0 ? undefined : parseJsonText(text))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (request, body: Buffer, done) => {
      try {
        done(null, parseFormText(decodeText(request, body)))
      } catch (error) {
        done(error as Error, undefined)
      }
    },
  )
}
