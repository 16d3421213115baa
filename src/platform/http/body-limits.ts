// Request body limits (spec: Limits). Two limits, both configuration:
//  - on the wire (default 1 MiB): enforced at protocol level, 413 with no problem body, whether the
//    length is declared or the body is chunked;
//  - decompressed (default 10 MiB): 413 problem details with business rule BRTS90400.
// A route may set limits of its own (config.bodyLimits): the NAT import, whose body is a zip.
// Bodies may be sent gzip, deflate or br encoded. Decoding is streamed and cut off at the limit, so a
// decompression bomb is never buffered beyond it.
// A body is never left unread on a kept-alive connection (issue 30): a body on a method that takes
// none (GET, HEAD, TRACE) is read, bounded by the wire limit, and ignored; the rest of a body a
// refusal answered before reading (415, 401 after the body began) is discarded, bounded alike. Over
// the bound the connection is closed. Either way the next request on the connection is answered.
import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HttpRequestError } from './problem.ts'

/** Over the wire limit: answered 413 with an empty body and the connection closed. */
export class WireBodyTooLargeError extends Error {
  readonly statusCode = 413
  constructor() {
    super('request body exceeds the wire size limit')
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's own body limits, in place of the service's (the NAT import takes a zip larger than
     * a record). The route sets Fastify's bodyLimit to match (decodedBodyBytes + 1).
     */
    bodyLimits?: BodyLimits
  }
}

export interface BodyLimits {
  wireBodyBytes: number
  decodedBodyBytes: number
}

export class DecodedBodyTooLargeError extends HttpRequestError {
  readonly statusCode = 413
  constructor(limit: number) {
    super('payload-too-large', `The decompressed request body exceeds ${limit} bytes.`, { errorNumber: 'BRTS90400' })
  }
}

class ByteCounter extends Transform {
  count = 0
  readonly #limit: number
  readonly #tooLarge: () => Error
  constructor(limit: number, tooLarge: () => Error) {
    super()
    this.#limit = limit
    this.#tooLarge = tooLarge
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.count += chunk.length
    if (this.count > this.#limit) callback(this.#tooLarge())
    else callback(null, chunk)
  }
}

const decoders: Record<string, (() => Transform) | undefined> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
}

/** Methods whose body Fastify never reads (its own list of bodyless methods). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE'])

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Reads what is left of a request body and throws it away; settles when it has ended. Over `limit`
 * bytes it stops reading and rejects with WireBodyTooLargeError.
 */
function discard(body: Readable, limit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0
    const stop = (error?: Error) => {
      body.off('data', count).off('end', stop).off('error', stop).off('close', closed)
      if (error) {
        body.pause()
        reject(error)
      } else resolve()
    }
    const count = (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) stop(new WireBodyTooLargeError())
    }
    const closed = () => stop(body.readableEnded ? undefined : new Error('the connection closed during the body'))
    body.on('data', count).once('end', stop).once('error', stop).once('close', closed)
    body.resume() // a stream once piped and unpiped stays paused until told
  })
}

export function installBodyLimits(app: FastifyInstance, serviceLimits: BodyLimits): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const limits = request.routeOptions.config?.bodyLimits ?? serviceLimits
    const declaredLength = Number(request.headers['content-length'] ?? Number.NaN)
    if (declaredLength > limits.wireBodyBytes) throw new WireBodyTooLargeError()
    if (BODYLESS_METHODS.has(request.method)) {
      // Fastify ignores it; read and thrown away here (its encoding does not matter), so the body
      // never holds the connection and a large one is refused like any other.
      if (hasBody(request)) await discard(payload, limits.wireBodyBytes)
      return payload
    }
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
    const decoder = encoding === 'identity' ? undefined : decoders[encoding]
    if (encoding !== 'identity' && !decoder) {
      throw new HttpRequestError(
        'unsupported-media-type',
        `Content-Encoding ${encoding} is not supported; use gzip, deflate or br.`,
      )
    }
    // Fast path: an unencoded body of declared, allowed length needs no counting here; Fastify
    // refuses a body whose length differs from the declared one.
    if (!decoder && declaredLength <= limits.wireBodyBytes) return payload
    const wire = new ByteCounter(limits.wireBodyBytes, () => new WireBodyTooLargeError())
    const decoded = new ByteCounter(
      limits.decodedBodyBytes,
      () => new DecodedBodyTooLargeError(limits.decodedBodyBytes),
    )
    const decoding = decoder?.()
    // Marks zlib's own errors (not gzip, truncated...) so they are answered as an undecodable body.
    decoding?.once('error', (error) => Object.assign(error, { statusCode: 400, bodyDecodingFailed: true }))
    const stages: (Readable | Transform)[] = [payload, wire, ...(decoding ? [decoding] : []), decoded]
    const body = pipeline(stages as [Readable, ...Transform[]], () => {}) as Transform & {
      receivedEncodedLength?: number
    }
    // Fastify compares the declared Content-Length with the bytes on the wire, not the decoded ones.
    Object.defineProperty(body, 'receivedEncodedLength', { get: () => wire.count })
    return body
  })

  // Answered before its body was read (a refusal in a hook, an unsupported media type): the rest is
  // discarded, bounded, so the connection can carry the next request; over the bound it is closed.
  app.addHook('onResponse', async (request, reply) => {
    const raw = request.raw
    if (raw.complete || raw.destroyed || !hasBody(request)) return
    if (String(reply.getHeader('connection') ?? '').toLowerCase() === 'close') return
    const limits = request.routeOptions.config?.bodyLimits ?? serviceLimits
    raw.unpipe() // from the size counting of the preParsing hook, which nobody reads any more
    discard(raw, limits.wireBodyBytes).catch(() => raw.socket?.destroy())
  })
}
