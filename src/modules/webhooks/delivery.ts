// One delivery: the event signed per Standard Webhooks (the `standardwebhooks` package's signer:
// webhook-id is the event id, webhook-timestamp the time of sending, webhook-signature one `v1,<hmac>`
// per valid secret, space-separated, so a receiver that holds either secret during a rotation
// verifies), POSTed with a time limit, redirects not followed (a 3xx is a failure), and the connection
// made only to an address the destination policy accepts (destination.ts).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { Webhook } from 'standardwebhooks'
import { checkUrl, DestinationRefused, lookupChecked, type DestinationPolicy } from './destination.ts'

export interface AttemptOutcome {
  succeeded: boolean
  statusCode: number | null
  /** A short reason when no 2xx came back: never a secret, never the response body. */
  error: string | null
  latencyMs: number
}

/** The headers of a signed delivery: `secrets` are whsec_ secrets, the current one first. */
export function signedHeaders(eventId: string, payload: string, secrets: readonly string[], now = new Date()) {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, now, payload)).join(' '),
  }
}

export interface Sender {
  send(url: string, eventId: string, payload: string, secrets: readonly string[]): Promise<AttemptOutcome>
  close(): void
}

const RESPONSE_BYTES_READ = 4096

export function createSender(policy: DestinationPolicy, timeoutMs: number): Sender {
  const lookup = lookupChecked(policy)
  // Kept-alive connections: one made to a checked address stays with it.
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 4, lookup } as ConstructorParameters<typeof HttpAgent>[0]),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 4, lookup } as ConstructorParameters<typeof HttpsAgent>[0]),
  }
  return {
    async send(url, eventId, payload, secrets) {
      const started = performance.now()
      const outcome = (partial: Omit<AttemptOutcome, 'latencyMs'>): AttemptOutcome => ({
        ...partial,
        latencyMs: Math.round(performance.now() - started),
      })
      let target: URL
      try {
        target = new URL(url)
        // The scheme, and an address written in the URL; a name is checked by the lookup as the
        // connection is made.
        checkUrl(target, policy)
      } catch (error) {
        return outcome({ succeeded: false, statusCode: null, error: errorText(error) })
      }
      const body = Buffer.from(payload, 'utf8')
      const headers = {
        ...signedHeaders(eventId, payload, secrets),
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': 'vetrs-webhooks/1',
      }
      const isHttps = target.protocol === 'https:'
      return new Promise<AttemptOutcome>((resolve) => {
        let settled = false
        const settle = (result: Omit<AttemptOutcome, 'latencyMs'>) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          resolve(outcome(result))
        }
        const request = (isHttps ? httpsRequest : httpRequest)(
          target,
          { method: 'POST', headers, agent: isHttps ? agents.https : agents.http, lookup },
          (response: IncomingMessage) => {
            const status = response.statusCode ?? 0
            let read = 0
            response.on('data', (chunk: Buffer) => {
              read += chunk.length
              if (read > RESPONSE_BYTES_READ) response.destroy()
            })
            const done = () =>
              settle(
                status >= 200 && status < 300
                  ? { succeeded: true, statusCode: status, error: null }
                  : {
                      succeeded: false,
                      statusCode: status,
                      error: status >= 300 && status < 400 ? 'redirect not followed' : `answered ${status}`,
                    },
              )
            response.on('end', done)
            response.on('close', done)
            response.on('error', done)
          },
        )
        const timer = setTimeout(() => {
          request.destroy(new Error(`no answer within ${timeoutMs} ms`))
        }, timeoutMs)
        request.on('error', (error) => settle({ succeeded: false, statusCode: null, error: errorText(error) }))
        request.end(body)
      })
    },
    close() {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}

function errorText(error: unknown): string {
  if (error instanceof DestinationRefused) return error.message.slice(0, 200)
  const code = (error as NodeJS.ErrnoException).code
  const message = error instanceof Error ? error.message : String(error)
  return (code ? `${code}: ${message}` : message).slice(0, 200)
}
