// OAuth 2.0 client credentials grant (RFC 6749 section 4.4) and the public keys that verify tokens.
import Type from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from '../../config/config.ts'
import type { Db } from '../db/database.ts'
import { DomainError } from '../../domain/errors.ts'
import { ProblemDetails } from '../http/problem.ts'
import { authenticateClient } from './clients.service.ts'
import type { SigningKey } from './signing-key.ts'
import { issueToken } from './tokens.ts'
import { named } from '../http/schema-names.ts'
import { decodeUtf8, formDecode } from '../http/body-parsers.ts'
import { textProblem } from '../schema/strings.ts'

const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ maxLength: 64, description: 'client_credentials' }),
    client_id: Type.Optional(Type.String({ maxLength: 128 })),
    client_secret: Type.Optional(Type.String({ maxLength: 256 })),
    scope: Type.Optional(
      Type.String({ maxLength: 512, description: 'space-separated subset of the granted scopes; default all of them' }),
    ),
  },
  { additionalProperties: false },
)

const TokenResponse = named(
  'TokenResponse',
  Type.Object(
    {
      access_token: Type.String(),
      token_type: Type.Literal('Bearer'),
      expires_in: Type.Integer({ description: 'seconds until the token expires' }),
      scope: Type.String(),
    },
    { description: 'an access token (RFC 6749 section 5.1)' },
  ),
)

// OAuth clients read `error`; everything else reads the problem fields. Both are present.
class OAuthError extends DomainError {
  constructor(kind: 'invalid-client' | 'invalid-grant-request', error: string, description: string) {
    super(kind, description)
    Object.assign(this.extensions, { error, error_description: description })
  }
}

export function registerAuthRoutes(
  fastify: FastifyInstance,
  deps: { db: Db; key: SigningKey; auth: Config['auth'] },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/oauth2/token',
    {
      config: { public: true },
      schema: {
        tags: ['Authentication'],
        summary: 'Obtain an access token (OAuth 2.0 client credentials)',
        description:
          'Form-encoded body. Client credentials in the body (client_id, client_secret) or with HTTP Basic authentication.',
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: TokenResponse, '4xx': ProblemDetails },
      },
    },
    async (request, reply) => {
      const body = request.body
      if (body.grant_type !== 'client_credentials') {
        throw new OAuthError(
          'invalid-grant-request',
          'unsupported_grant_type',
          'Only grant_type=client_credentials is supported.',
        )
      }
      const basic = basicCredentials(request.headers.authorization)
      const clientId = basic?.clientId ?? body.client_id
      const secret = basic?.secret ?? body.client_secret
      if (!clientId || !secret)
        throw new OAuthError('invalid-client', 'invalid_client', 'Client credentials are required.')
      const client = await authenticateClient(deps.db, clientId, secret)
      if (!client) throw new OAuthError('invalid-client', 'invalid_client', 'Client authentication failed.')
      const requested = body.scope ? body.scope.split(' ') : client.scopes
      if (requested.some((scope) => !client.scopes.includes(scope))) {
        throw new OAuthError(
          'invalid-grant-request',
          'invalid_scope',
          `The client may request only: ${client.scopes.join(' ')}.`,
        )
      }
      reply.header('Cache-Control', 'no-store')
      return issueToken(deps.db, deps.key, deps.auth, client, requested)
    },
  )

  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags: ['Authentication'],
        summary: 'Public keys that verify access tokens (JWKS)',
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
      },
    },
    async () => ({ keys: [deps.key.publicJwk] }),
  )
}

function basicCredentials(header: string | undefined): { clientId: string; secret: string } | undefined {
  const match = header && /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header)
  if (!match?.[1]) return undefined
  const decoded = decodeUtf8(Buffer.from(match[1], 'base64'))
  if (decoded === undefined)
    throw new OAuthError('invalid-client', 'invalid_client', 'The Basic credentials are not valid UTF-8.')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  // RFC 6749 section 2.3.1: both parts are form-urlencoded before being joined.
  const clientId = formDecode(decoded.slice(0, colon)),
    secret = formDecode(decoded.slice(colon + 1))
  // Held to the same rules as the form body: bounded, and text only (a NUL reaches no query).
  if (clientId.length > 128 || secret.length > 256 || textProblem(clientId) || textProblem(secret)) {
    throw new OAuthError(
      'invalid-client',
      'invalid_client',
      'The Basic credentials are too long or contain characters no client id or secret has.',
    )
  }
  return { clientId, secret }
}
