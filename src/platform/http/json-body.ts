// JSON bodies: Fastify's parser (with its prototype-poisoning protection), except that an empty body
// sent with Content-Type: application/json counts as no body, as many HTTP clients send it for
// POSTs that carry nothing (creating a batch, requesting validation).
import type { FastifyInstance } from 'fastify'

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString()
    if (text.trim() === '') return done(null, undefined)
    parseJson(request, text, done)
  })
}
