// Client secrets are stored as scrypt hashes (Node's built-in implementation) with a per-secret salt;
// the cost parameters are stored alongside so they can be raised later without breaking old hashes.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const scrypt = (secret: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  )

const COST = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

export function generateSecret(): string {
  return randomBytes(32).toString('base64url')
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(secret, salt, KEY_LENGTH, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, expected] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !expected) return false
  const expectedKey = Buffer.from(expected, 'base64url')
  const key = await scrypt(secret, Buffer.from(salt, 'base64url'), expectedKey.length, {
    N: Number(N),
    r: Number(r),
    p: Number(p),
  })
  return timingSafeEqual(key, expectedKey)
}
