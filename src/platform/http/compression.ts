// Response compression: a response body of 1 KiB or more from a read (the OpenAPI description, pages
// of records, reference data, failed results) is compressed as the request's Accept-Encoding asks: br,
// gzip or deflate, in the client's order of preference; uncompressed when it asks for none of them.
// Responses say Vary: Accept-Encoding. Request bodies are not touched here: body-limits.ts decodes
// Content-Encoding itself, streamed and cut off at the size limits, so the plugin's own request
// decompression is switched off (it would decode a body twice, or before the limits apply).
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'

export const COMPRESSION_THRESHOLD_BYTES = 1024

export async function installCompression(app: FastifyInstance): Promise<void> {
  // Only reads can answer with a body worth compressing (pages, the OpenAPI description). Uploads and
  // the other writes answer a few hundred bytes, and are the hot path: they skip the plugin's
  // per-response hook altogether (registered before the plugin, so it sees the setting).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (route.compress === undefined && !methods.includes('GET')) route.compress = false
  })
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip', 'deflate'],
  })
}
