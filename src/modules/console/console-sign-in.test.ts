// Who the identity provider says a person is: the console's reading of the ID token's claims.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SignInRefused, userOf } from './console-sign-in.ts'

describe('web console: who the identity provider says a person is', () => {
  const claims = { rtoClaim: 'rto', roleClaim: 'vetrs_role' }

  it('reads name, e-mail, role and RTO from the configured claims', () => {
    assert.deepEqual(
      userOf({ sub: 'u1', name: ' Robin ', email: 'r@x.example', rto: 90001, vetrs_role: 'rto-staff' }, claims),
      { subject: 'u1', name: 'Robin', email: 'r@x.example', role: 'rto-staff', rto: '90001' },
    )
    assert.equal(
      userOf({ sub: 'u2', vetrs_role: ['viewer', 'authorised-person'], rto: '1' }, claims).role,
      'authorised-person',
    )
  })

  it('refuses a person without a console role, and an RTO person without an RTO', () => {
    assert.throws(() => userOf({ sub: 'u', rto: '90001' }, claims), SignInRefused)
    assert.throws(() => userOf({ sub: 'u', vetrs_role: 'admin', rto: '90001' }, claims), SignInRefused)
    assert.throws(() => userOf({ sub: 'u', vetrs_role: 'rto-staff' }, claims), /claim rto/)
  })

  it('an operator acts for no RTO, whatever the claims say', () => {
    assert.equal(userOf({ sub: 'o', vetrs_role: 'operator', rto: '90001' }, claims).rto, undefined)
  })
})
