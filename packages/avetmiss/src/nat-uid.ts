// Deterministic record UIDs: the same NAT record, imported on any machine and any number of times,
// gets the same UID, so a re-import updates the records it made instead of duplicating them.
import { createHash } from 'node:crypto'

/** Changing this changes every UID ever derived: it is part of the contract, like a UUID v5 namespace. */
const NAMESPACE = 'vetrs:avetmiss:nat-uid:v1'

/**
 * A UUID, version 4 in shape (version nibble 4, RFC 4122 variant), derived from the SHA-256 of the
 * namespace, the RTO code, the resource type and the natural key. The parts are hashed as a JSON
 * array, so no two different keys can run together (["ab", "c"] and ["a", "bc"] differ). Values are
 * taken as given: pass them as the reader returns them (trimmed), and '' for a blank key part.
 */
export function natUid(rtoCode: string, resourceType: string, naturalKey: readonly string[]): string {
  if (naturalKey.length === 0) throw new TypeError('natUid needs at least one natural key part')
  const bytes = createHash('sha256')
    .update(JSON.stringify([NAMESPACE, rtoCode, resourceType, ...naturalKey]), 'utf8')
    .digest()
    .subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
