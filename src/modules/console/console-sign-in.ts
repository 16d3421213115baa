// The console as an OpenID Connect relying party (openid-client): authorisation code flow with PKCE,
// state and nonce; the person's name, e-mail, RTO and role read from the ID token and the userinfo
// endpoint (the claim names are settings), and RP-initiated sign-out. The provider's metadata is
// discovered on first use and kept; a failed discovery is tried again on the next sign-in.
import * as oidc from 'openid-client'
import { type ConsoleUser, isConsoleRole } from './console-people.ts'

export interface RelyingPartyOptions {
  issuer: string
  clientId: string
  clientSecret: string | undefined
  scope: string
  rtoClaim: string
  roleClaim: string
  redirectUri: string
  postLogoutRedirectUri: string
}

/** What the console keeps between sending the browser to the provider and its coming back. */
export interface PendingSignIn {
  codeVerifier: string
  state: string
  nonce: string
}

export class SignInRefused extends Error {}

export interface RelyingParty {
  begin(): Promise<{ url: string; pending: PendingSignIn }>
  finish(callbackUrl: URL, pending: PendingSignIn): Promise<{ user: ConsoleUser; idToken: string | undefined }>
  /** Where to send the browser to end its session at the provider too, if the provider says. */
  signOutUrl(idToken: string | undefined): Promise<string | undefined>
}

export function createRelyingParty(options: RelyingPartyOptions): RelyingParty {
  let configuration: Promise<oidc.Configuration> | undefined
  const discover = () => {
    configuration ??= oidc
      .discovery(
        new URL(options.issuer),
        options.clientId,
        undefined,
        options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None(),
        // An http issuer is only ever the built-in provider of development mode, or a test's.
        options.issuer.startsWith('http://') ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        configuration = undefined
        throw error
      })
    return configuration
  }

  return {
    async begin() {
      const config = await discover()
      const pending = {
        codeVerifier: oidc.randomPKCECodeVerifier(),
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
      }
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: options.redirectUri,
        scope: options.scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      })
      return { url: url.href, pending }
    },

    async finish(callbackUrl, pending) {
      const config = await discover()
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      })
      const idClaims = tokens.claims()
      if (!idClaims) throw new SignInRefused('The identity provider sent no ID token.')
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub)
      const claims: Record<string, unknown> = { ...idClaims, ...userInfo }
      return { user: userOf(claims, options), idToken: tokens.id_token }
    },

    async signOutUrl(idToken) {
      const config = await discover().catch(() => undefined)
      if (!config?.serverMetadata().end_session_endpoint) return undefined
      return oidc.buildEndSessionUrl(config, {
        post_logout_redirect_uri: options.postLogoutRedirectUri,
        client_id: options.clientId,
        ...(idToken ? { id_token_hint: idToken } : {}),
      }).href
    },
  }
}

/** The person from the provider's claims; refused when the role, or an RTO person's RTO, is missing. */
export function userOf(claims: Record<string, unknown>, options: { rtoClaim: string; roleClaim: string }): ConsoleUser {
  const roleClaim = claims[options.roleClaim]
  const role = (Array.isArray(roleClaim) ? roleClaim : [roleClaim]).find(isConsoleRole)
  if (!role)
    throw new SignInRefused(
      `Your identity carries no console role (claim ${options.roleClaim}: rto-staff, authorised-person or operator).`,
    )
  const rtoClaim = claims[options.rtoClaim]
  const rto = typeof rtoClaim === 'string' || typeof rtoClaim === 'number' ? String(rtoClaim) : undefined
  if (role !== 'operator' && !rto)
    throw new SignInRefused(`Your identity does not say which RTO you act for (claim ${options.rtoClaim}).`)
  const email = typeof claims.email === 'string' ? claims.email : undefined
  const name =
    typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : (email ?? String(claims.sub))
  return { subject: String(claims.sub), name, email, role, rto: role === 'operator' ? undefined : rto }
}
