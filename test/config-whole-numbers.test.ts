// Whole-number settings (sizes, counts, seconds, days) are taken only as written in digits. TypeBox's
// conversion alone would truncate: RATE_LIMIT_MAX=1.5 started the service with 1, and 1e2 with 100.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ConfigError, EnvironmentSchema, loadConfig } from '../src/config/config.ts'

const wholeNumberSettings = Object.entries(EnvironmentSchema.properties)
  .filter(([, schema]) => (schema as { type?: unknown }).type === 'integer')
  .map(([name]) => name)

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig({ DATA_DIR: 'memory://', ...env })
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error))
    return error.message
  }
  return ''
}

describe('whole-number settings', () => {
  it('there are whole-number settings to check (the schema marks them integer)', () => {
    assert.ok(wholeNumberSettings.length >= 10, wholeNumberSettings.join(', '))
    assert.ok(wholeNumberSettings.includes('RATE_LIMIT_MAX'))
  })

  for (const name of wholeNumberSettings) {
    it(`${name}: a fraction, an exponent or a hexadecimal number stops the start, named once`, () => {
      for (const written of ['1.5', '2.0', '1e2', '0x10', 'twelve']) {
        const message = problemsOf({ [name]: written })
        const lines = message.split('\n').filter((line) => line.includes(`${name}:`))
        assert.equal(lines.length, 1, `${name}=${written}: ${message}`)
        assert.match(lines[0]!, /must be a whole number/, `${name}=${written}`)
      }
    })
  }

  it('digits are taken as the number they write, with blanks around them ignored', () => {
    assert.equal(loadConfig({ DATA_DIR: 'memory://', RATE_LIMIT_MAX: '120' }).rateLimit.max, 120)
    assert.equal(loadConfig({ DATA_DIR: 'memory://', RATE_LIMIT_MAX: ' 7 ' }).rateLimit.max, 7)
    assert.match(problemsOf({ RATE_LIMIT_MAX: '-3' }), /RATE_LIMIT_MAX: .*(>=|minimum|at least)/)
  })
})
