// A body is never left unread on a kept-alive connection (issue 30, "A body on a GET"): a GET with a
// large chunked or gzip body, or a request refused before its body was read, is answered and the
// next request on the same connection is answered promptly too, not after the request timeout.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { startTestService, type TestService } from './support/index.ts'

/**
 * Longest a test waits for both answers: half the request timeout (60 s) that the jam it guards against
 * lasted, so a jam still fails it, with room for a CI machine several times slower than a quiet one.
 */
const PROMPT_MS = 30_000

describe('bodies on kept-alive connections', () => {
  let t: TestService
  before(async () => {
    t = await startTestService()
  })
  after(() => t.close())

  /**
   * Writes `head` and `body` on one connection, then a second request (GET /health/live), and collects
   * the status lines answered until two have come, the connection closes, or PROMPT_MS has passed.
   */
  function twoRequests(head: string, body: Buffer): Promise<{ statuses: number[]; closed: boolean; ms: number }> {
    const { port } = new URL(t.baseUrl)
    const started = performance.now()
    return new Promise((resolve) => {
      let received = ''
      let closed = false
      const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))
      const done = () => {
        clearTimeout(timer)
        socket.destroy()
        resolve({ statuses: statuses(), closed, ms: performance.now() - started })
      }
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(head)
        socket.write(body)
        socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')
      })
      socket.setEncoding('latin1')
      socket.on('data', (chunk) => {
        received += chunk
        if (statuses().length >= 2) done()
      })
      socket.on('error', () => {}) // a reset after an answer is reported by `closed`
      socket.on('close', () => {
        closed = true
        done()
      })
      const timer = setTimeout(done, PROMPT_MS)
    })
  }

  const bytes = (size: number) => Buffer.alloc(size, 'a')
  /** The body in 64 KiB chunks, as a client streaming it would send it. */
  function chunked(body: Buffer): Buffer {
    const parts: Buffer[] = []
    for (let offset = 0; offset < body.length; offset += 65536) {
      const chunk = body.subarray(offset, offset + 65536)
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
    }
    parts.push(Buffer.from('0\r\n\r\n'))
    return Buffer.concat(parts)
  }

  it('a GET with a 700 KB chunked body is answered, and so is the next request on the connection', async () => {
    const outcome = await twoRequests(
      'GET /health/live HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunked(bytes(700 * 1024)),
    )
    assert.deepEqual(outcome.statuses, [200, 200], JSON.stringify(outcome))
    assert.ok(outcome.ms < PROMPT_MS)
  })

  it('a GET with Content-Encoding: gzip and a 700 KB body is answered, and so is the next request', async () => {
    const body = gzipSync(bytes(700 * 1024), { level: 0 })
    const outcome = await twoRequests(
      `GET /health/live HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    )
    assert.deepEqual(outcome.statuses, [200, 200], JSON.stringify(outcome))
  })

  it('a GET of an unknown path with a chunked body is 404, and the next request is answered', async () => {
    const outcome = await twoRequests(
      'GET /nothing-here HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunked(bytes(700 * 1024)),
    )
    assert.deepEqual(outcome.statuses, [404, 200], JSON.stringify(outcome))
  })

  it('a request refused before its body is read (415) does not hold the connection: the next request is answered', async () => {
    const outcome = await twoRequests(
      'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunked(bytes(700 * 1024)),
    )
    assert.deepEqual(outcome.statuses, [415, 200], JSON.stringify(outcome))
  })

  it('Limits: a GET whose body is over the wire limit is 413 and the connection is closed at once', async () => {
    const outcome = await twoRequests(
      'GET /health/live HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunked(bytes(2 * 1024 * 1024)),
    )
    assert.deepEqual(outcome.statuses, [413], JSON.stringify(outcome))
    assert.ok(outcome.closed, 'the connection is closed')
    assert.ok(outcome.ms < PROMPT_MS)
  })
})
