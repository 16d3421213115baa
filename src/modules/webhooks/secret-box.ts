// Webhook signing secrets. Standard Webhooks secrets: `whsec_` and 32 random bytes in base64. The
// service signs with them (HMAC-SHA256), so it must keep them, unlike an API client's secret which it
// only verifies (and stores as a scrypt hash): a secret is shown to the client once (when the endpoint
// is created or its secret rotated) and stored sealed with AES-256-GCM under WEBHOOK_SECRETS_KEY
// (`v1.<iv>.<tag>.<ciphertext>`), or, without a key, as it is (`plain.<secret>`), so a key set later
// still reads secrets stored before it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

export function seal(secret: string, key: Buffer | undefined): string {
  if (key === undefined) return `plain.${secret}`
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join(
    '.',
  )
}

export function unseal(stored: string, key: Buffer | undefined): string {
  if (stored.startsWith('plain.')) return stored.slice('plain.'.length)
  const [version, iv, tag, sealed] = stored.split('.')
  if (version !== 'v1' || !iv || !tag || sealed === undefined)
    throw new Error('a webhook secret is stored in an unknown form')
  if (key === undefined) throw new Error('a webhook secret is sealed but WEBHOOK_SECRETS_KEY is not set')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8')
}
