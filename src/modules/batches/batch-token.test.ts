// A batch token is what people paste after a command: it must never read as an option.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { newBatchToken } from './batches.service.ts'

it('a batch token never starts with "-" (a command line would read it as an option), and is 32 URL-safe characters', () => {
  // One base64url token in 64 starts with '-': 10,000 of them would show it all but certainly.
  for (let i = 0; i < 10_000; i++) {
    const token = newBatchToken()
    assert.match(token, /^[A-Za-z0-9_][A-Za-z0-9_-]{31}$/, token)
  }
})
