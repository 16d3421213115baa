// A configuration error is printed at start and logged (issue 30, "A secret printed at start"): no
// secret setting is ever quoted in it, whether the secret itself is what is wrong or another setting
// is. Connection strings are quoted without their password.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { ConfigError, EnvironmentSchema, SECRET_SETTINGS, loadConfig } from '../src/config/config.ts'

/** Every problem of the configuration, as printed at start (the error's message). */
function printed(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error))
    return error.message
  }
  assert.fail(`configuration was accepted: ${JSON.stringify(Object.keys(env))}`)
}

const validPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString()
const p384Pem = generateKeyPairSync('ec', { namedCurve: 'secp384r1' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString()
const pemBody = (pem: string) => pem.split('\n').slice(1, -2).join('')

/** For each secret setting: values that are wrong on their own, and a valid one. */
const secrets: Record<string, { invalid: { value: string; env?: Record<string, string> }[]; valid: string }> = {
  METRICS_TOKEN: {
    invalid: [
      { value: 'Abcdefghijklmnopqrstuvwxyz01234' }, // 31 characters: one short
      { value: 'Abcdefghijklmnopqrstuvwxyz0123456789 with spaces' },
    ],
    valid: 'Abcdefghijklmnopqrstuvwxyz0123456789',
  },
  AUTH_SIGNING_KEY: {
    invalid: [{ value: 'SecretButNotAKey0123456789' }, { value: p384Pem }],
    valid: validPem,
  },
  CONSOLE_OIDC_CLIENT_SECRET: {
    invalid: [{ value: 'SecretWithoutAnIssuer0123456789' }], // needs CONSOLE_OIDC_ISSUER
    valid: 'SecretOfTheConsoleClient0123456789',
  },
  CONSOLE_SESSION_KEY: {
    invalid: [{ value: 'SecretSessionKeyTooShort0123456789' }, { value: `${'ab'.repeat(31)}zz` }],
    valid: 'ab'.repeat(32),
  },
  WEBHOOK_SECRETS_KEY: {
    invalid: [{ value: 'SecretWebhookKeyTooShort0123456789' }, { value: `${'cd'.repeat(31)}zz` }],
    valid: 'cd'.repeat(32),
  },
}

/** What must not appear: the value, and for a PEM its base64 body. */
function assertNotQuoted(message: string, name: string, value: string) {
  const fragments = value.includes('-----BEGIN') ? [pemBody(value), pemBody(value).slice(0, 40)] : [value]
  for (const fragment of fragments)
    assert.ok(!message.includes(fragment), `${name} is quoted in the configuration error:\n${message}`)
}

describe('configuration errors never print a secret', () => {
  for (const [name, { invalid, valid }] of Object.entries(secrets)) {
    it(`${name}: a wrong value is named by its setting and never quoted`, () => {
      for (const { value, env } of invalid) {
        const message = printed({ ...env, [name]: value })
        assert.match(message, new RegExp(name), 'the setting is named')
        assertNotQuoted(message, name, value)
      }
    })

    it(`${name}: a valid value is not quoted when another setting is wrong`, () => {
      const env: Record<string, string> =
        name === 'CONSOLE_OIDC_CLIENT_SECRET'
          ? { CONSOLE_OIDC_ISSUER: 'https://idp.example', CONSOLE_OIDC_CLIENT_ID: 'console' }
          : {}
      const message = printed({ ...env, [name]: valid, PORT: 'not-a-port' })
      assert.match(message, /PORT/)
      assertNotQuoted(message, name, valid)
    })
  }

  it('every setting whose name says it holds a secret is treated as one (a new secret cannot be forgotten)', () => {
    const secretLooking = Object.keys(EnvironmentSchema.properties).filter(
      (name) =>
        /SECRET|TOKEN|KEY|PASSWORD/.test(name) &&
        !/_(SECONDS|FILE|CLAIM)$/.test(name) &&
        !name.endsWith('_TTL_SECONDS'),
    )
    assert.deepEqual(secretLooking.sort(), [...SECRET_SETTINGS].sort())
    for (const name of SECRET_SETTINGS) assert.ok(name in secrets, `${name} is tested above`)
  })

  const password = 'S3cretPassw0rd'
  const connectionStrings: Record<string, string[]> = {
    DATABASE_URL: [
      `postgress://vetrs:${password}@db.example/vetrs`, // wrong scheme
      `postgres://vetrs:${password}@db.example:notaport/vetrs`, // does not parse
      `postgres://vetrs:${password}@with@at@db example/vetrs`, // an unencoded @ in the password, a space in the host
      `vetrs:${password}@db.example/vetrs`, // no scheme at all
      `postgres://db example/vetrs?sslmode=require&password=${password}`, // the password as a parameter
      `postgres://db example/vetrs?sslpassword=${password}`,
    ],
    REDIS_URL: [
      `redis://:${password}@redis.example:notaport`,
      `redis//default:${password}@redis.example`,
      `rediss://default:${password}@redis example:6379`,
    ],
  }
  connectionStrings.DATABASE_READ_URL = connectionStrings.DATABASE_URL!

  for (const [name, values] of Object.entries(connectionStrings)) {
    it(`${name}: a connection string that is wrong is quoted without its password`, () => {
      for (const value of values) {
        const env: Record<string, string> =
          name === 'DATABASE_READ_URL' ? { DATABASE_URL: 'postgres://db.example/vetrs' } : {}
        const message = printed({ ...env, [name]: value })
        assert.match(message, new RegExp(name))
        assert.ok(!message.includes(password), `${name} ${JSON.stringify(value)} printed its password:\n${message}`)
        assert.ok(!message.includes(password.slice(0, 8)), `part of the password is printed:\n${message}`)
      }
    })
  }
})
