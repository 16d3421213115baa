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
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitFor(
      'child service ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`child service exited with ${child.exitCode}`)
        return (await fetch(`${baseUrl}/health/ready`).then(
          (r) => r.ok,
          () => false,
        ))
          ? true
          : undefined
      },
      { timeoutMs: 90_000, intervalMs: 50 },
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
