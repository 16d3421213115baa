// Runs the service as a separate OS process (npm start's entry point) on a loopback port, for tests
// about what several processes share.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { waitFor } from './wait.ts'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

/**
 * How long a child may take to answer ready: a bound, not a timing. A start costs about 5 s of CPU
 * (2 s alone on 2 cores, 11 to 18 s beside five other starts); CI's six shards at once took a start
 * past 90 s twice, with nothing to say why (fifteenth session), so the bound is wider and the failure
 * says what the last probe got and what the process printed.
 */
const READY_TIMEOUT_MS = 180_000
const PROBE_TIMEOUT_MS = 10_000

/** The last lines a process printed, at most about 4 KB of them. */
class OutputTail {
  private text_ = ''
  add(chunk: Buffer): void {
    this.text_ = (this.text_ + chunk.toString('utf8')).slice(-4096)
  }
  text(): string {
    return this.text_.trim()
  }
}

export interface ChildService {
  baseUrl: string
  pid: number
  stop(): Promise<void>
  /** Ends the process at once (SIGKILL), as a crash would: nothing is flushed or closed. */
  crash(): Promise<void>
}

/**
 * `throughLauncher`: started as the npm scripts start it (`node src/start.mjs src/main.ts`), the launcher's
 * version check and memory settings included; otherwise `node src/main.ts`.
 */
export async function startChildService(
  env: Record<string, string>,
  nodeFlags: string[] = [],
  throughLauncher = false,
): Promise<ChildService> {
  const port = await freePort()
  const entry = throughLauncher ? ['src/start.mjs', 'src/main.ts'] : ['src/main.ts']
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, ...entry], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // What the child printed (its log at warn and its errors), passed on as before and kept, the last
  // lines of it, for the message of a start that does not become ready.
  const output = new OutputTail()
  child.stdout!.on('data', (chunk: Buffer) => output.add(chunk))
  child.stderr!.on('data', (chunk: Buffer) => {
    output.add(chunk)
    process.stderr.write(chunk)
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const started = Date.now()
  let lastProbe = 'no probe answered yet'
  try {
    await waitFor(
      () =>
        `child service ready (pid ${child.pid}, port ${port}; last probe: ${lastProbe}; its last output:\n${output.text() || '(none)'})`,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `child service exited (${child.exitCode ?? child.signalCode}); its last output:\n${output.text()}`,
          )
        // Each probe bounded, so a probe the process accepts and never answers is seen as such.
        const answer = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
          async (response) => `${response.status} ${await response.text()}`,
          (error: Error) => `${error.name}: ${error.cause instanceof Error ? error.cause.message : error.message}`,
        )
        lastProbe = `${answer} at ${Math.round((Date.now() - started) / 1000)} s`
        return answer.startsWith('200 ') ? true : undefined
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 50 },
    )
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return {
    baseUrl,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
    crash: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  }
}

/** Whether a process of this id exists (signal 0 delivers nothing; it only checks). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
