// Request body limits (spec: Limits). Two limits, both configuration:
//  - on the wire (default 1 MiB): enforced at protocol level, 413 with no problem body, whether the
//    length is declared or the body is chunked;
//  - decompressed (default 10 MiB): 413 problem details with business rule BRTS90400.
// A route may set limits of its own (config.bodyLimits): the NAT import, whose body is a zip.
// Bodies may be sent gzip, deflate or br encoded. Decoding is streamed and cut off at the limit, so a
// decompression bomb is never buffered beyond it.
import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { DomainError } from '../../domain/errors.ts'

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

export class DecodedBodyTooLargeError extends DomainError {
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

export function installBodyLimits(app: FastifyInstance, serviceLimits: BodyLimits): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const limits = request.routeOptions.config?.bodyLimits ?? serviceLimits
    const declaredLength = Number(request.headers['content-length'] ?? Number.NaN)
    if (declaredLength > limits.wireBodyBytes) throw new WireBodyTooLargeError()
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
    const decoder = encoding === 'identity' ? undefined : decoders[encoding]
    if (encoding !== 'identity' && !decoder) {
      throw new DomainError(
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
}
