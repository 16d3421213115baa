// A real headless Chromium for the console's tests: Debian's chromium package driven by
// playwright-core (never a browser Playwright downloads), and axe-core run inside each page.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Browser, BrowserContext, Page } from 'playwright-core'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined
  const missing = `Chromium is not installed at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`
  // A developer without Chromium is told and carries on (test/console-security.test.ts still checks
  // the console over HTTP); CI, which installs it, must not pass with the browser tests skipped.
  if (process.env.CI) throw new Error(`${missing}. CI runs the browser tests and does not skip them.`)
  return missing
}

/**
 * How long a browser action or wait may take before it fails (Playwright's default is 30 s). A bound
 * against a hang, not a timing: in CI six shards share two cores with the services under test, and a
 * page of the embedded database can wait behind a validation job of its own service; two console tests
 * failed once in a landing run that took 2.8 times as long as the same run here.
 */
export const BROWSER_ACTION_BOUND_MS = 90_000

/** Chromium, each of whose contexts (newContext, newPage) waits up to BROWSER_ACTION_BOUND_MS. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] })
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (...options) => {
    const context = await newContext(...options)
    context.setDefaultTimeout(BROWSER_ACTION_BOUND_MS)
    return context
  }
  return browser
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[]; failureSummary?: string }[]
}

/**
 * axe-core on the page as it stands: WCAG 2.0, 2.1 and 2.2 A and AA, and axe's best practices. No
 * violation is allowed. Injected through the DevTools protocol (page.evaluate), which the console's
 * Content-Security-Policy (no script at all) does not apply to.
 */
export async function assertAccessible(page: Page): Promise<void> {
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<any> } }).axe
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    })
    return result.violations
  })) as AxeViolation[]
  const described = violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('\n')}`,
  )
  assert.deepEqual(described, [], `axe-core violations on ${page.url()}`)
}

/** Nothing on the page is wider than the viewport (tables scroll inside their own region). */
export async function assertNoHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }))
  assert.ok(
    scrollWidth <= innerWidth,
    `the page is ${scrollWidth}px wide in a ${innerWidth}px viewport (${page.url()})`,
  )
}

export interface SignedIn {
  context: BrowserContext
  page: Page
}

/**
 * Signs a demo person in through the real OpenID Connect flow: the console's Sign in link, the
 * built-in provider's authorisation endpoint, its sign-in page, back to the console's callback.
 */
export async function signIn(
  browser: Browser,
  baseUrl: string,
  username: string,
  checkPages = false,
): Promise<SignedIn> {
  const context = await browser.newContext()
  const page = await context.newPage()
  if (process.env.CONSOLE_TEST_DEBUG) page.on('response', (r) => console.log(r.status(), r.url()))
  await page.goto(`${baseUrl}/console/`)
  if (checkPages) await assertAccessible(page)
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.waitForURL(/\/console\/idp-sign-in\//)
  if (checkPages) await assertAccessible(page)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill('demo')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => !url.pathname.startsWith('/console/idp'))
  await page.getByText('Signed in as').waitFor()
  return { context, page }
}

/**
 * Reloads the page until the text appears (a validation run going on in the background), for at most
 * 100 s: under the test runner's 120 s per test, so that a miss says what did not appear.
 */
export async function reloadUntil(page: Page, text: string | RegExp, timeoutMs = 100_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if ((await page.getByText(text).count()) > 0) return
    if (Date.now() > deadline) throw new Error(`"${text}" did not appear on ${page.url()} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await page.reload()
  }
}

/**
 * With CONSOLE_SCREENSHOTS naming a directory (docs/screenshots for the README's), the page as it
 * stands is saved there as <name>.png: the whole page, down to at most `maxHeight` CSS pixels, which
 * keeps a long list's picture small enough for the README. Off by default: a test run leaves the
 * worktree as it was.
 */
export async function screenshot(page: Page, name: string, maxHeight = 1800): Promise<void> {
  const directory = process.env.CONSOLE_SCREENSHOTS
  if (!directory) return
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }))
  await page.screenshot({
    path: `${directory}/${name}.png`,
    fullPage: true,
    clip: { x: 0, y: 0, width, height: Math.min(height, maxHeight) },
  })
}
