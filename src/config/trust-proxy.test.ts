// TRUST_PROXY as loadConfig reads it: addresses and CIDR ranges only, never "true" or a hop count,
// which would believe any X-Forwarded-For a client writes.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ConfigError, loadConfig } from './config.ts'

function problemsOf(setting: string): string[] {
  try {
    loadConfig({ TRUST_PROXY: setting })
    return []
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    return error.problems.filter((problem) => problem.startsWith('TRUST_PROXY'))
  }
}

describe('TRUST_PROXY', () => {
  it('is empty when unset: X-Forwarded-For is never believed', () => {
    assert.deepEqual(loadConfig({}).http.trustedProxies, [])
  })

  it('reads a comma-separated list of addresses and ranges, spaces allowed', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,fd00::/8 , ::1' }).http.trustedProxies, [
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
      '::1',
    ])
  })

  const refused: [string, string][] = [
    ['true', 'trusting every hop lets a client choose its own address'],
    ['2', 'a hop count believes whatever the client put first'],
    ['10.0.0.0/33', 'an IPv4 prefix longer than 32'],
    ['fd00::/129', 'an IPv6 prefix longer than 128'],
    ['10.0.0.0/8/8', 'two prefixes'],
    ['10.0.0.0/x', 'a prefix that is not a number'],
    ['load-balancer.internal', 'a host name (it would be resolved once, and silently go stale)'],
  ]
  for (const [setting, why] of refused) {
    it(`refuses "${setting}": ${why}`, () => {
      const problems = problemsOf(setting)
      assert.equal(problems.length, 1, problems.join('\n'))
      assert.match(problems[0] ?? '', /is not an IP address or CIDR range/)
    })
  }
})
