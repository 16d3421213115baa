// Response compression: a response body of 1 KiB or more (the OpenAPI description, pages of records,
// problem details listing many failures) is compressed as the request's Accept-Encoding asks: br,
// gzip or deflate, in the client's order of preference; uncompressed when it asks for none of them.
// Responses say Vary: Accept-Encoding. Request bodies are not touched here: body-limits.ts decodes
// Content-Encoding itself, streamed and cut off at the size limits, so the plugin's own request
// decompression is switched off (it would decode a body twice, or before the limits apply).
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'

export const COMPRESSION_THRESHOLD_BYTES = 1024

export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip', 'deflate'],
  })
}
