// Deterministic UIDs: the same NAT record gets the same UID on every import, on every machine.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { natUid } from '../src/index.ts'

const UUID_V4_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('natUid', () => {
  it('is a UUID of version 4 shape with the RFC 4122 variant', () => {
    for (let i = 0; i < 200; i++) assert.match(natUid('90001', 'Student', [`S${i}`]), UUID_V4_SHAPE)
  })

  it('is stable: the same inputs give the same UID, here and in another process', () => {
    const uid = natUid('90001', 'SubjectEnrolment', ['CBD01', 'S000123', 'BSBWHS411', 'BSB40120', '2026-02-03'])
    assert.equal(natUid('90001', 'SubjectEnrolment', ['CBD01', 'S000123', 'BSBWHS411', 'BSB40120', '2026-02-03']), uid)
    const script = `import { natUid } from ${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)}
process.stdout.write(natUid('90001', 'SubjectEnrolment', ['CBD01', 'S000123', 'BSBWHS411', 'BSB40120', '2026-02-03']))`
    const elsewhere = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    assert.equal(elsewhere, uid)
  })

  it('does not change between releases: a UID pinned here must stay what it is', () => {
    // Changing the namespace or the hashing would give every record imported before a new UID.
    assert.equal(natUid('90001', 'Student', ['S000123']), '40f14aa1-d4ed-4932-a16d-6317239811d1')
  })

  it('is the documented derivation: SHA-256 of the JSON array of namespace, RTO, type and key parts', () => {
    assert.equal(natUid('90001', 'Student', ['S000123']), uidByTheDocumentedRecipe())
  })

  it('differs when the RTO, the resource type or any key part differs', () => {
    const uids = [
      natUid('90001', 'Student', ['S000123']),
      natUid('90002', 'Student', ['S000123']),
      natUid('90001', 'DeliveryLocation', ['S000123']),
      natUid('90001', 'Student', ['S000124']),
      natUid('90001', 'Student', ['s000123']),
      natUid('90001', 'Student', ['S000123', '']),
      natUid('90001', 'Student', ['S000123', '2026-02-03']),
    ]
    assert.equal(new Set(uids).size, uids.length)
  })

  it('joins the parts unambiguously: moving text from one part to the next changes the UID', () => {
    assert.notEqual(natUid('90001', 'Program', ['ab', 'c']), natUid('90001', 'Program', ['a', 'bc']))
    assert.notEqual(natUid('9000', 'Student', ['1S1']), natUid('90001', 'Student', ['S1']))
    assert.notEqual(natUid('90001', 'Student|x', ['y']), natUid('90001', 'Student', ['x|y']))
    assert.notEqual(natUid('90001', 'Program', ['a,b']), natUid('90001', 'Program', ['a', 'b']))
  })

  it('needs a natural key', () => {
    assert.throws(() => natUid('90001', 'Student', []), TypeError)
  })
})

/** The recipe of the README, written out independently of the implementation. */
function uidByTheDocumentedRecipe(): string {
  // SHA-256 of the JSON array [namespace, RTO, type, ...key], first 16 bytes, version and variant set.
  const digest = createHash('sha256').update('["vetrs:avetmiss:nat-uid:v1","90001","Student","S000123"]').digest()
  const bytes = [...digest.subarray(0, 16)]
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0')).join('')
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-')
}
