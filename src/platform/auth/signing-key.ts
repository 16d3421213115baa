// The key that signs access tokens. Production passes one in (AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE;
// configuration refuses production without one). Development generates one key on first start and
// keeps it in the database, in clear, so every API process shares it.
import { createHash } from 'node:crypto'
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type CryptoKey } from 'jose'
import type { Db } from '../db/database.ts'

export const SIGNING_ALGORITHM = 'ES256'

export interface SigningKey {
  kid: string
  privateKey: CryptoKey
  publicJwk: JWK
}

declare module '../db/schema.ts' {
  interface Database {
    signing_key: {
      kid: string
      algorithm: string
      private_key_pem: string
      created_at: import('kysely').Generated<Date>
    }
  }
}

/** storedKeyAllowed is false in production: without a configured key it throws rather than store one. */
export async function loadSigningKey(
  db: Db,
  configuredPem: string | undefined,
  storedKeyAllowed = true,
): Promise<SigningKey> {
  if (configuredPem === undefined && !storedKeyAllowed)
    throw new Error(
      'No signing key configured (AUTH_SIGNING_KEY or AUTH_SIGNING_KEY_FILE); a key kept in the database is not used in production.',
    )
  const pem = configuredPem ?? (await storedOrNewPem(db))
  const privateKey = await importPKCS8(pem, SIGNING_ALGORITHM, { extractable: true })
  const { d: _private, ...publicJwk } = await exportJWK(privateKey)
  const kid = createHash('sha256')
    .update(JSON.stringify([publicJwk.x, publicJwk.y]))
    .digest('base64url')
    .slice(0, 16)
  return { kid, privateKey, publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' } }
}

async function storedOrNewPem(db: Db): Promise<string> {
  const oldest = () =>
    db
      .selectFrom('signing_key')
      .select('private_key_pem')
      .orderBy('created_at')
      .orderBy('kid')
      .limit(1)
      .executeTakeFirst()
  const existing = await oldest()
  if (existing) return existing.private_key_pem
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true })
  const pem = await exportPKCS8(privateKey)
  const kid = createHash('sha256').update(pem).digest('base64url').slice(0, 16)
  await db
    .insertInto('signing_key')
    .values({ kid, algorithm: SIGNING_ALGORITHM, private_key_pem: pem })
    .onConflict((conflict) => conflict.column('kid').doNothing())
    .execute()
  // Two processes starting together may both insert; both then use the oldest, so they agree.
  return (await oldest())!.private_key_pem
}
