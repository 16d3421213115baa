// Response headers that keep browsers, proxies and caches from mishandling what the service sends.
// Every response: X-Content-Type-Options nosniff, X-Frame-Options DENY and a Content-Security-Policy
// that lets nothing load or frame it (JSON is never a page), from @fastify/helmet. Every response
// that does not set its own Cache-Control: no-store, since most carry personal data or tokens and a
// shared cache must keep none of them. The documentation page (/docs) sends its own, looser policy
// (see openapi.ts); HSTS only when clients reach the service over https.
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

/** Registered before every other hook, so that a request refused early (401, 503) still gets the headers. */
export async function installSecurityHeaders(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'frame-ancestors': ["'none'"] },
    },
    frameguard: { action: 'deny' },
    // HSTS over plain http is ignored by browsers and would mislead; subdomains are not the service's.
    strictTransportSecurity: publicBaseUrl.startsWith('https://') ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.getHeader('cache-control') === undefined) reply.header('Cache-Control', 'no-store')
    return payload
  })
}

/** The same two headers for the few answers written to the socket directly (malformed HTTP). */
export const RAW_RESPONSE_SECURITY_HEADERS = 'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n'
