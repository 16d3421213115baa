// The NAT set worker's bound on its garbage (src/modules/nat-bridge/garbage-budget.ts): it collects
// when more than its budget was allocated since its last collection, and not otherwise; the
// collection it uses is there in a process started without --expose-gc, as the service's is.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { getHeapStatistics } from 'node:v8'
import { collectAndRelease, GarbageBudget } from '../src/modules/nat-bridge/garbage-budget.ts'

describe('the NAT set worker garbage budget', () => {
  it('collects once more than the budget was allocated since the last collection, and not before', () => {
    let collections = 0
    const budget = new GarbageBudget(32, () => {
      collections++
    })
    const held: Uint8Array[] = []
    budget.spend()
    assert.equal(collections, 0, 'nothing allocated yet')
    held.push(new Uint8Array(16 * 1024 * 1024).fill(1))
    budget.spend()
    assert.equal(collections, 0, '16 MB is within a 32 MB budget')
    held.push(new Uint8Array(32 * 1024 * 1024).fill(1))
    budget.spend()
    assert.equal(collections, 1, '48 MB is past it')
    budget.spend()
    assert.equal(collections, 1, 'counted again from the collection')
    assert.equal(held.length, 2)
  })

  it('has a collection that gives memory back in a process started without --expose-gc', () => {
    assert.equal(
      typeof (globalThis as { gc?: unknown }).gc,
      'undefined',
      'node --test runs this file without --expose-gc',
    )
    const collect = collectAndRelease()
    assert.equal(typeof collect, 'function')
    let garbage: Uint8Array[] | undefined = Array.from({ length: 16 }, () => new Uint8Array(1024 * 1024).fill(1))
    const before = getHeapStatistics().external_memory
    assert.equal(garbage.length, 16)
    garbage = undefined
    collect!()
    const freed = before - getHeapStatistics().external_memory
    assert.ok(freed >= 16 * 1024 * 1024, `${freed} bytes of external memory freed`)
    // The flag reaches only contexts made after it: this one's global is as it was.
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined')
  })
})
