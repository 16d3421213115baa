// The web console's settings as loadConfig reads them: which identity provider, which claims, the
// session key and idle time; a secret is never shown in a refusal.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { ConfigError, loadConfig } from './config.ts'

describe('web console settings', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env)
      return []
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      return error.problems
    }
  }

  it('development without an issuer signs in against the built-in provider', () => {
    const config = loadConfig({})
    assert.deepEqual(config.console?.identityProvider, { kind: 'built-in' })
    assert.equal(config.console?.sessionIdleSeconds, 1800)
  })

  it('production without an issuer has no console at all, so the built-in provider never runs there', () => {
    const config = loadConfig({ SERVICE_MODE: 'production', AUTH_SIGNING_KEY: testSigningKey() })
    assert.equal(config.console, undefined)
  })

  it('production with an issuer needs a client id and a session key; the secret is never shown', () => {
    const problems = problemsOf({
      SERVICE_MODE: 'production',
      AUTH_SIGNING_KEY: testSigningKey(),
      CONSOLE_OIDC_ISSUER: 'https://id.collector.example',
      CONSOLE_OIDC_CLIENT_SECRET: 'very-secret-value',
    })
    assert.ok(
      problems.some((p) => p.startsWith('CONSOLE_OIDC_ISSUER needs CONSOLE_OIDC_CLIENT_ID')),
      problems.join('\n'),
    )
    assert.ok(
      problems.some((p) => p.includes('needs CONSOLE_SESSION_KEY')),
      problems.join('\n'),
    )
    assert.ok(!problems.join('\n').includes('very-secret-value'))
    assert.ok(
      problemsOf({ SERVICE_MODE: 'production', CONSOLE_OIDC_ISSUER: 'http://id.collector.example' }).some((p) =>
        p.startsWith('CONSOLE_OIDC_ISSUER must be https in production'),
      ),
    )
    const badKey = problemsOf({ CONSOLE_SESSION_KEY: 'short-and-secret' })
    assert.ok(
      badKey.some((p) => p.startsWith('CONSOLE_SESSION_KEY:') && p.includes('(secret, not shown)')),
      badKey.join('\n'),
    )
  })

  it('an external provider is taken with its claims and session settings', () => {
    const config = loadConfig({
      SERVICE_MODE: 'production',
      AUTH_SIGNING_KEY: testSigningKey(),
      CONSOLE_OIDC_ISSUER: 'https://id.collector.example/realms/vet',
      CONSOLE_OIDC_CLIENT_ID: 'vetrs-console',
      CONSOLE_OIDC_CLIENT_SECRET: 'secret',
      CONSOLE_OIDC_RTO_CLAIM: 'organisation',
      CONSOLE_OIDC_ROLE_CLAIM: 'roles',
      CONSOLE_SESSION_KEY: 'ab'.repeat(32),
      CONSOLE_SESSION_IDLE_SECONDS: '900',
    })
    assert.deepEqual(config.console?.identityProvider, {
      kind: 'external',
      issuer: 'https://id.collector.example/realms/vet',
      clientId: 'vetrs-console',
      clientSecret: 'secret',
    })
    assert.equal(config.console?.rtoClaim, 'organisation')
    assert.equal(config.console?.roleClaim, 'roles')
    assert.equal(config.console?.sessionKey?.length, 32)
    assert.equal(config.console?.sessionIdleSeconds, 900)
  })
})

function testSigningKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string
}
