// Verifying a webhook delivery in one call, per the Standard Webhooks specification the service signs
// by (with the `standardwebhooks` package): the signature is base64 HMAC-SHA256, keyed by the base64
// bytes after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<raw body>`; webhook-signature holds
// one or more space-separated `v1,<signature>`; the timestamp must be within five minutes of now.
// Written on node:crypto, not on that package, because the SDK has no runtime dependency
// (docs/decisions.md, "Webhooks"); packages/client/test/webhooks.test.ts checks it agrees with the
// package's own verifier on real deliveries and on altered ones.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { VetrsEvent } from './client.ts'

/** A delivery that does not verify: no secret matches, a header is missing, or the timestamp is off. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
}

/** A delivery's headers as a server framework gives them (Node's IncomingHttpHeaders, a Headers object, a plain record). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

/** How far webhook-timestamp may be from now, as the specification recommends. */
const TOLERANCE_SECONDS = 5 * 60
const SECRET_PREFIX = 'whsec_'

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value
  }
  return undefined
}

function keyOf(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
  if (key.length === 0) throw new WebhookVerificationError('The secret is empty')
  return key
}

/**
 * Checks a delivery's signature against the endpoint's secret (`whsec_...`; during a rotation give
 * both: either verifies) and answers the event it carries. Give the body exactly as received (a
 * string or the raw bytes), never a re-serialised object. Throws WebhookVerificationError when no
 * secret verifies, a header is missing, or the timestamp is more than five minutes off.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  now: Date = new Date(),
): VetrsEvent {
  const id = headerOf(headers, 'webhook-id')
  const timestamp = headerOf(headers, 'webhook-timestamp')
  const signatures = headerOf(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers')
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp')
  const seconds = Number(timestamp)
  const nowSeconds = Math.floor(now.getTime() / 1000)
  if (nowSeconds - seconds > TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too old')
  if (seconds - nowSeconds > TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too new')
  const body = Buffer.from(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload)
  const given = signatures
    .split(' ')
    .map((versioned) => versioned.split(','))
    .filter(([version, signature]) => version === 'v1' && signature !== undefined)
    .map(([, signature]) => Buffer.from(signature!, 'base64'))
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    const expected = createHmac('sha256', keyOf(candidate)).update(`${id}.${timestamp}.`).update(body).digest()
    if (given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected)))
      return JSON.parse(body.toString('utf8')) as VetrsEvent
  }
  throw new WebhookVerificationError('No matching signature found')
}
