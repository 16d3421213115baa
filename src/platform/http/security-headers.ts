// Response headers that keep browsers, proxies and caches from mishandling what the service sends, as
// OWASP's REST Security Cheat Sheet lists them for a JSON API: X-Content-Type-Options nosniff;
// X-Frame-Options DENY and a Content-Security-Policy that lets nothing load or frame a response (JSON
// is never a page); Cache-Control no-store, since most responses carry personal data or tokens and a
// shared cache must keep none of them (a route that allows caching sets its own, which replaces
// this); Strict-Transport-Security when clients reach the service over https. The documentation page
// (/docs) replaces the policy with its own, looser one (openapi.ts).
// A fixed set, precomputed and set in one hook: the page-oriented headers a helmet-style plugin adds
// (cross-origin policies, referrer policy, DNS prefetch control...) do nothing for JSON, and building
// and writing them on every response cost a measurable share of an upload (docs/decisions.md).
import type { FastifyInstance } from 'fastify'

export function securityHeaders(publicBaseUrl: string): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'cache-control': 'no-store',
    // HSTS over plain http is ignored by browsers and would mislead; subdomains are not the service's.
    ...(publicBaseUrl.startsWith('https://') ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  }
}

/** Registered before every other hook, so that a request refused early (401, 503) still gets the headers. */
export function installSecurityHeaders(app: FastifyInstance, publicBaseUrl: string): void {
  const headers = securityHeaders(publicBaseUrl)
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
}

/** The same two headers for the few answers written to the socket directly (malformed HTTP). */
export const RAW_RESPONSE_SECURITY_HEADERS = 'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n'
