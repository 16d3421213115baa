// Access tokens: short-lived signed JWTs carrying the client, the RTO it acts for and its scopes.
// Verification results are cached per token until expiry so signature checks stay off the hot path;
// the client's enabled flag is re-read at most every AUTH_CLIENT_CACHE_SECONDS.
// A token of our own must also look like one we issue: typ at+jwt (RFC 9068), issued now or in the
// past, and living no longer than AUTH_TOKEN_TTL_SECONDS. A leaked signing key, or a bug in another
// issuer sharing it, then cannot mint tokens that outlive the configured lifetime.
import { randomUUID } from 'node:crypto'
import { SignJWT, createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import type { Config } from '../../config/config.ts'
import type { Db } from '../db/database.ts'
import { findClient, recordTokenIssuance, type ApiClientRow } from './clients.repo.ts'
import { SIGNING_ALGORITHM, type SigningKey } from './signing-key.ts'
import type { Actor } from './scopes.ts'

export interface IssuedToken {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
}

/** The typ header of issued access tokens (RFC 9068), and the only one accepted on our own tokens. */
export const ACCESS_TOKEN_TYPE = 'at+jwt'

/** How far the clocks of the processes that issue and verify tokens may disagree. */
export const CLOCK_SKEW_SECONDS = 60

export async function issueToken(
  db: Db,
  key: SigningKey,
  auth: Config['auth'],
  client: ApiClientRow,
  scopes: string[],
): Promise<IssuedToken> {
  const issuedAt = Math.floor(Date.now() / 1000)
  const expiresAt = issuedAt + auth.tokenTtlSeconds
  const tokenId = randomUUID()
  const accessToken = await new SignJWT({ client_id: client.client_id, rto: client.rto_id, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(auth.issuer)
    .setAudience(auth.audience)
    .setSubject(client.client_id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(tokenId)
    .sign(key.privateKey)
  await recordTokenIssuance(db, {
    token_id: tokenId,
    client_id: client.client_id,
    rto_id: client.rto_id,
    issued_at: new Date(issuedAt * 1000),
    expires_at: new Date(expiresAt * 1000),
  })
  return { access_token: accessToken, token_type: 'Bearer', expires_in: auth.tokenTtlSeconds, scope: scopes.join(' ') }
}

export class InvalidTokenError extends Error {}

export interface TokenVerifier {
  verify(token: string): Promise<Actor>
}

const MAX_CACHED_TOKENS = 10_000

export function createTokenVerifier(db: Db, key: SigningKey, auth: Config['auth']): TokenVerifier {
  const external = auth.external
  const keys: JWTVerifyGetKey = external
    ? createRemoteJWKSet(new URL(external.jwksUrl))
    : createLocalJWKSet({ keys: [key.publicJwk] })
  const expected = external
    ? { issuer: external.issuer, audience: external.audience }
    : { issuer: auth.issuer, audience: auth.audience }
  // An external identity provider chooses its own token type and lifetime; its tokens are held only
  // to its signature, issuer, audience, expiry and an issue time that is not in the future.
  const acceptedTokens = external
    ? { algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'] }
    : { algorithms: [SIGNING_ALGORITHM], typ: ACCESS_TOKEN_TYPE, requiredClaims: ['iat', 'exp'] }
  const verified = new Map<string, { actor: Actor; expiresAtMs: number }>()
  const clientStatus = new Map<string, { enabled: boolean; checkedAtMs: number }>()

  async function isClientEnabled(clientId: string): Promise<boolean> {
    if (external) return true // the external identity provider owns client lifecycle
    const cached = clientStatus.get(clientId)
    if (cached && Date.now() - cached.checkedAtMs < auth.clientCacheSeconds * 1000) return cached.enabled
    const enabled = (await findClient(db, clientId))?.enabled ?? false
    clientStatus.set(clientId, { enabled, checkedAtMs: Date.now() })
    return enabled
  }

  function actorFrom(payload: JWTPayload): Actor {
    const rto = payload[external?.rtoClaim ?? 'rto']
    const clientId = payload[external?.clientClaim ?? 'client_id'] ?? payload.sub
    const scope = payload.scope ?? payload.scp
    const scopes = typeof scope === 'string' ? scope.split(' ') : Array.isArray(scope) ? scope.map(String) : []
    if (typeof rto !== 'string' || rto === '' || typeof clientId !== 'string' || clientId === '') {
      throw new InvalidTokenError('token lacks the RTO or client claim')
    }
    return { clientId, rto, scopes: new Set(scopes.filter(Boolean)) }
  }

  return {
    async verify(token) {
      const now = Date.now()
      let entry = verified.get(token)
      if (!entry || entry.expiresAtMs <= now) {
        verified.delete(token)
        const { payload } = await jwtVerify(token, keys, { ...expected, ...acceptedTokens }).catch((error: unknown) => {
          throw new InvalidTokenError(error instanceof Error ? error.message : 'invalid token')
        })
        assertPlausibleTimes(payload, Math.floor(now / 1000), external ? undefined : auth.tokenTtlSeconds)
        entry = { actor: actorFrom(payload), expiresAtMs: payload.exp * 1000 }
        if (verified.size >= MAX_CACHED_TOKENS) verified.delete(verified.keys().next().value!)
        verified.set(token, entry)
      }
      if (!(await isClientEnabled(entry.actor.clientId))) throw new InvalidTokenError('client is disabled')
      return entry.actor
    },
  }
}

/** Refuses tokens without expiry, issued in the future, or (own tokens) living longer than we issue them. */
function assertPlausibleTimes(
  payload: JWTPayload,
  nowSeconds: number,
  maxLifetimeSeconds: number | undefined,
): asserts payload is JWTPayload & { exp: number } {
  if (typeof payload.exp !== 'number') throw new InvalidTokenError('token has no expiry')
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_SKEW_SECONDS)
    throw new InvalidTokenError('token is issued in the future')
  if (maxLifetimeSeconds === undefined) return
  if (typeof payload.iat !== 'number') throw new InvalidTokenError('token has no issue time')
  if (payload.exp - payload.iat > maxLifetimeSeconds + CLOCK_SKEW_SECONDS)
    throw new InvalidTokenError('token lives longer than the service issues tokens for')
}
