// A console session without a browser: the same OpenID Connect sign-in a person makes (the console's
// Sign in link, the built-in provider's sign-in form, back to the console's callback), followed by
// fetch with a cookie jar. The console's security checks (CSRF, one RTO's pages closed to another,
// the operator changing nothing) run with it everywhere, Chromium or not; the browser tests add what
// only a browser can show (keyboard, accessibility, live updates).
import assert from 'node:assert/strict'

export interface Answer {
  status: number
  location: string | undefined
  text: string
}

export class ConsoleSession {
  readonly #cookies = new Map<string, string>()
  readonly baseUrl: string

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl
  }

  /** One request, redirects not followed, cookies kept; `url` is a path of the service or a full URL. */
  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<Answer> {
    const target = new URL(url, this.baseUrl)
    assert.equal(target.origin, new URL(this.baseUrl).origin, `only the service under test is asked (${url})`)
    const headers: Record<string, string> = {}
    if (this.#cookies.size > 0)
      headers.cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded'
    const response = await fetch(target, {
      method,
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(cookie) || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
    const location = response.headers.get('location') ?? undefined
    return {
      status: response.status,
      location: location && new URL(location, target).href,
      text: await response.text(),
    }
  }

  /** GET, following redirects (at most ten), as a browser's address bar does. */
  async page(url: string): Promise<Answer & { url: string }> {
    let current = new URL(url, this.baseUrl).href
    for (let hop = 0; hop < 10; hop++) {
      const answer = await this.request('GET', current)
      if (answer.status < 300 || answer.status >= 400 || !answer.location) return { ...answer, url: current }
      current = answer.location
    }
    throw new Error(`more than ten redirects from ${url}`)
  }

  /** POST a form, then follow where it sends the browser. */
  async submit(url: string, form: Record<string, string>): Promise<Answer & { url: string }> {
    const answer = await this.request('POST', url, form)
    if (answer.status >= 300 && answer.status < 400 && answer.location) return this.page(answer.location)
    return { ...answer, url: new URL(url, this.baseUrl).href }
  }
}

/** The value of the first hidden `_csrf` field of a page. */
export function csrfOf(html: string): string {
  const token = /name="_csrf"\s+value="([^"]+)"|value="([^"]+)"\s+name="_csrf"/.exec(html)
  assert.ok(token, 'the page carries a CSRF token')
  return decodeEntities(token[1] ?? token[2]!)
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/gi, '/')
    .replace(/&#39;|&#x27;/gi, "'")
    .replace(/&quot;/g, '"')

/** Signs a demo person in through the real OpenID Connect flow, as the browser tests' signIn does. */
export async function signInOverHttp(baseUrl: string, username: string): Promise<ConsoleSession> {
  const session = new ConsoleSession(baseUrl)
  const home = await session.page('/console/')
  const signInLink = /<a[^>]+href="([^"]+)"[^>]*>\s*Sign in\s*</.exec(home.text)
  assert.ok(signInLink, 'the signed-out home page links to Sign in')
  const form = await session.page(decodeEntities(signInLink[1]!))
  assert.match(form.url, /\/console\/idp-sign-in\//, 'the provider asks who is signing in')
  const signedIn = await session.submit(form.url, { _csrf: csrfOf(form.text), username, password: 'demo' })
  assert.equal(signedIn.status, 200, `signed in as ${username} (ended at ${signedIn.url})`)
  assert.match(signedIn.text, /Signed in as/)
  return session
}
