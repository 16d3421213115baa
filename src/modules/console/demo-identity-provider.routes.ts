// The built-in OpenID Connect provider of development mode and tests (oidc-provider, mounted at
// /console/idp), with the demo people: the console signs in against it through the same
// authorisation code flow with PKCE it uses against the collector's provider in production, so there
// is no second, fake way in. Never created in production (config.ts gives production no console
// without an external issuer). Its sign-in page is the console's own (/console/idp-sign-in/:uid);
// the grant to the console is given without a consent page (a first-party client). Sessions and codes
// are kept in memory: one process, development only (docs/decisions.md, "Web console: signing in").
import { generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyPluginAsync } from 'fastify'
import Provider, {
  type Adapter,
  type AdapterFactory,
  type AdapterPayload,
  type KoaContextWithOIDC,
} from 'oidc-provider'
import { LRUCache } from 'lru-cache'
import { DEMO_PASSWORD, DEMO_PEOPLE, demoPerson } from './demo-people.ts'
import { renderPage } from './console.views.ts'

export const BUILT_IN_PROVIDER_PATH = '/console/idp'
const SIGN_IN_PATH = '/console/idp-sign-in'

export interface BuiltInProvider {
  issuer: string
  clientId: string
  clientSecret: string
}

export interface BuiltInProviderOptions {
  publicBaseUrl: string
  redirectUri: string
  postLogoutRedirectUri: string
  rtoClaim: string
  roleClaim: string
}

/** A client id and a secret made at start, known only to this process's console. */
export function builtInProviderClient(publicBaseUrl: string): BuiltInProvider {
  return {
    issuer: `${publicBaseUrl}${BUILT_IN_PROVIDER_PATH}`,
    clientId: 'vetrs-console',
    clientSecret: randomBytes(32).toString('base64url'),
  }
}

const page = (ctx: KoaContextWithOIDC, html: string) => {
  ctx.type = 'html'
  ctx.set('cache-control', 'no-store')
  ctx.body = html
}

/** Entries the provider keeps (sessions, interactions, codes, grants, tokens, and their indexes). */
const STORED_ENTRIES = 10_000

/**
 * The provider's storage: in this process's memory, bounded, each entry for its own lifetime. Given
 * explicitly, because with oidc-provider's default (the same, unbounded per model) it prints a
 * plain-text development warning among the JSON log lines at start (issue 30).
 */
function inMemoryStorage(): AdapterFactory {
  type Entry = AdapterPayload | string | Set<string>
  const store = new LRUCache<string, Entry>({ max: STORED_ENTRIES })
  const ttlOf = (expiresIn?: number) => (expiresIn ? { ttl: expiresIn * 1000 } : {})
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`
    const find = async (id: string | undefined) => (id ? (store.get(key(id)) as AdapterPayload | undefined) : undefined)
    const byIndex = (index: string) => {
      const id = store.get(index)
      return find(typeof id === 'string' ? id : undefined)
    }
    return {
      async upsert(id, payload, expiresIn) {
        store.set(key(id), payload, ttlOf(expiresIn))
        if (model === 'Session' && payload.uid) store.set(`sessionUid:${payload.uid}`, id, ttlOf(expiresIn))
        if (payload.userCode) store.set(`userCode:${payload.userCode}`, id, ttlOf(expiresIn))
        if (payload.grantId) {
          const members = store.get(`grant:${payload.grantId}`)
          const grant = members instanceof Set ? members : new Set<string>()
          store.set(`grant:${payload.grantId}`, grant.add(key(id)))
        }
      },
      find,
      findByUid: (uid) => byIndex(`sessionUid:${uid}`),
      findByUserCode: (userCode) => byIndex(`userCode:${userCode}`),
      async consume(id) {
        const payload = await find(id)
        if (payload) payload.consumed = Math.floor(Date.now() / 1000)
      },
      async destroy(id) {
        store.delete(key(id))
      },
      async revokeByGrantId(grantId) {
        const members = store.get(`grant:${grantId}`)
        if (members instanceof Set) for (const member of members) store.delete(member)
        store.delete(`grant:${grantId}`)
      },
    }
  }
}

function createProvider(client: BuiltInProvider, options: BuiltInProviderOptions): Provider {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), use: 'sig' }
  const scopeClaims = ['name', options.rtoClaim, options.roleClaim]
  const provider = new Provider(client.issuer, {
    adapter: inMemoryStorage(),
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.postLogoutRedirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    jwks: { keys: [signingKey as never] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], profile: scopeClaims, email: ['email'] },
    pkce: { required: () => true },
    // Short lives: a development provider (the console's own session has its own idle timeout).
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Grant: 8 * 3600,
      Session: 8 * 3600,
    },
    async findAccount(_ctx, sub) {
      const person = demoPerson(sub)
      if (!person) return undefined
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          name: person.name,
          email: person.email,
          [options.roleClaim]: person.role,
          ...(person.rto ? { [options.rtoClaim]: person.rto } : {}),
        }),
      }
    },
    interactions: { url: (_ctx, interaction) => `${SIGN_IN_PATH}/${interaction.uid}` },
    // The console is the provider's own, first-party client: signing in grants it what it asks, with
    // no consent page.
    async loadExistingGrant(ctx) {
      const grantId =
        (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ??
        ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId)
      if (grantId) return ctx.oidc.provider.Grant.find(grantId)
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      })
      grant.addOIDCScope('openid profile email')
      grant.addOIDCClaims(['sub', 'name', 'email', ...scopeClaims])
      await grant.save()
      return grant
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) =>
          page(ctx, renderPage('idp-sign-out', { title: 'Sign out of the demo identity provider' }, { form })),
        postLogoutSuccessSource: (ctx) =>
          page(ctx, renderPage('signed-out', { title: 'Signed out' }, { demoProvider: true })),
      },
    },
    renderError: (ctx, out) =>
      page(ctx, renderPage('error', { title: 'Sign-in problem' }, { message: out.error_description ?? out.error })),
  })
  return provider
}

interface SignInBody {
  username?: unknown
  password?: unknown
  _csrf?: unknown
}

function passwordMatches(given: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(DEMO_PASSWORD)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The provider's endpoints under /console/idp, answered by oidc-provider itself on the raw request
 * before Fastify reads a body; and the sign-in page an interaction sends the browser to.
 */
export const demoIdentityProviderRoutes: FastifyPluginAsync<{
  client: BuiltInProvider
  options: BuiltInProviderOptions
}> = async (app, { client, options }) => {
  // Made on first use: its signing key costs a moment of CPU that a service nobody signs in to (most
  // test services, a development API used by programs) need not spend.
  let made: { provider: Provider; callback: ReturnType<Provider['callback']> } | undefined
  const providerOf = () => {
    if (!made) {
      const provider = createProvider(client, options)
      made = { provider, callback: provider.callback() }
    }
    return made
  }
  const config = { public: true }

  const handOver = async (request: { raw: IncomingMessage }, reply: { hijack(): void; raw: unknown }) => {
    reply.hijack()
    const raw = request.raw as IncomingMessage & { originalUrl?: string }
    raw.originalUrl = raw.url
    raw.url = (raw.url ?? '/').slice(BUILT_IN_PROVIDER_PATH.length) || '/'
    await providerOf().callback(raw, reply.raw as never)
  }
  // Registered under the console's prefix: these paths are relative to /console.
  for (const url of ['/idp', '/idp/*']) {
    app.route({
      method: ['GET', 'POST'],
      url,
      config,
      schema: { hide: true },
      onRequest: handOver, // before any body parser: the provider reads its own bodies
      handler: async () => undefined, // never reached
    })
  }

  app.get<{ Params: { uid: string } }>(
    '/idp-sign-in/:uid',
    { config, schema: { hide: true } },
    async (request, reply) => {
      const interaction = await providerOf().provider.interactionDetails(request.raw, reply.raw)
      return reply
        .type('text/html')
        .send(
          renderPage(
            'idp-sign-in',
            { title: 'Sign in (demo identity provider)', csrf: reply.generateCsrf() },
            { uid: interaction.uid, people: DEMO_PEOPLE, error: undefined, username: '' },
          ),
        )
    },
  )

  app.post<{ Params: { uid: string }; Body: SignInBody }>(
    '/idp-sign-in/:uid',
    { config: { public: true, checksOwnBody: true }, schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const { provider } = providerOf()
      const interaction = await provider.interactionDetails(request.raw, reply.raw)
      const username = typeof request.body?.username === 'string' ? request.body.username.trim() : ''
      const password = typeof request.body?.password === 'string' ? request.body.password : ''
      const person = demoPerson(username)
      if (!person || !passwordMatches(password)) {
        return reply
          .code(401)
          .type('text/html')
          .send(
            renderPage(
              'idp-sign-in',
              { title: 'Sign in (demo identity provider)', csrf: reply.generateCsrf() },
              {
                uid: interaction.uid,
                people: DEMO_PEOPLE,
                error: 'That username and password do not match a demo person.',
                username,
              },
            ),
          )
      }
      const returnTo = await provider.interactionResult(
        request.raw,
        reply.raw,
        { login: { accountId: person.username } },
        { mergeWithLastSubmission: false },
      )
      return reply.redirect(returnTo, 303)
    },
  )
}
