// The processes `npm run cluster` starts: each spawned in a process group of its own (so a Ctrl-C in
// the terminal reaches the script alone, which then stops them in order), its output appended to a
// log file, and stopped by its PID with a ladder of signals, each given time before the next.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createConnection, createServer, type Server } from 'node:net'
import { basename } from 'node:path'

/** A signal and how long to wait for the process to end after it, before the next rung. */
export type StopLadder = readonly (readonly [NodeJS.Signals, number])[]

export interface ProcessSpec {
  /** Short name: primary, replica, redis, api1, worker1, haproxy. */
  name: string
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd: string
  logFile: string
  /** Run as this user (PostgreSQL refuses to run as root). */
  user?: { uid: number; gid: number }
  stopLadder: StopLadder
  /** Resolves true once the process serves; polled until the start deadline. */
  ready: () => Promise<boolean>
  /** Longest wait for ready. */
  startTimeoutMs: number
  /** Where it can be reached, for the summary. */
  url?: string
  port?: number
}

export interface ProcessRecord {
  name: string
  pid: number
  command: string
  port: number | undefined
  url: string | undefined
  logFile: string
}

export class ManagedProcess {
  readonly spec: ProcessSpec
  readonly #child: ChildProcess
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  #stopping = false

  private constructor(spec: ProcessSpec, child: ChildProcess) {
    this.spec = spec
    this.#child = child
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode })
      else child.once('exit', (code, signal) => resolve({ code, signal }))
    })
  }

  get pid(): number {
    return this.#child.pid!
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null
  }

  /** True once stop() was called: an exit after that is expected. */
  get stopping(): boolean {
    return this.#stopping
  }

  get record(): ProcessRecord {
    return {
      name: this.spec.name,
      pid: this.pid,
      command: this.spec.command,
      port: this.spec.port,
      url: this.spec.url,
      logFile: this.spec.logFile,
    }
  }

  /** Spawns the process and waits until it is ready; a process that exits or never gets ready is stopped and fails. */
  static async start(
    spec: ProcessSpec,
    { abort, onSpawned }: { abort: AbortSignal; onSpawned: (process: ManagedProcess) => void },
  ): Promise<ManagedProcess> {
    const log = openSync(spec.logFile, 'a')
    let child: ChildProcess
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['ignore', log, log],
        detached: true, // a process group of its own: the terminal's Ctrl-C is the script's to handle
        ...(spec.user ?? {}),
      })
    } finally {
      closeSync(log)
    }
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined))
      child.once('error', resolve)
    })
    child.on('error', () => {}) // a signal to a process already gone: its exit is what counts
    if (spawned) throw new Error(`${spec.name}: cannot start ${spec.command} (${spawned.message})`)
    const managed = new ManagedProcess(spec, child)
    onSpawned(managed) // before it is ready: a stop must reach it even while it starts
    const deadline = Date.now() + spec.startTimeoutMs
    try {
      for (;;) {
        if (!managed.running)
          throw new Error(
            `${spec.name} (pid ${managed.pid}) exited with ${child.exitCode ?? child.signalCode} while starting; its log, ${spec.logFile}, ends:\n${tail(spec.logFile)}`,
          )
        if (abort.aborted) throw new Error(`${spec.name}: start interrupted`)
        if (await spec.ready().catch(() => false)) return managed
        if (Date.now() > deadline)
          throw new Error(
            `${spec.name} (pid ${managed.pid}) not ready after ${spec.startTimeoutMs / 1000} s; its log, ${spec.logFile}, ends:\n${tail(spec.logFile)}`,
          )
        await delay(100)
      }
    } catch (error) {
      await managed.stop()
      throw error
    }
  }

  /** Sends each signal of the ladder in turn until the process has exited. */
  async stop(): Promise<void> {
    this.#stopping = true
    for (const [name, waitMs] of this.spec.stopLadder) {
      if (!this.running) break
      signal(this.pid, name)
      // The timer is cleared once the process ends: left running, it would keep a caller that does
      // not call process.exit (a test) alive for the rest of the rung (30 s for PostgreSQL).
      let timer: NodeJS.Timeout | undefined
      const ended = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(resolve, waitMs, false)
        }),
      ])
      clearTimeout(timer)
      if (ended) break
    }
    if (this.running) {
      signal(this.pid, 'SIGKILL')
      await this.exited
    }
  }

  /** Sends it a signal (SIGUSR1...), if it runs. */
  signal(name: NodeJS.Signals): void {
    if (this.running) signal(this.pid, name)
  }

  /** Ends it at once, as a crash would. */
  async kill(): Promise<void> {
    this.#stopping = true
    if (this.running) signal(this.pid, 'SIGKILL')
    await this.exited
  }
}

/** Signals a PID; one that has just ended is no error (its exit is awaited anyway). */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {}
}

/** A process alive as seen from outside (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return true // no /proc: kill(0) said it is there
  }
}

/**
 * The name of the program a PID runs now, to make sure a recorded PID was not reused by something else
 * (the base name only: redis-server rewrites its command line to `redis-server 127.0.0.1:port`).
 */
export function programOf(pid: number): string | undefined {
  try {
    return basename(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.split(' ')[0]!)
  } catch {
    return undefined
  }
}

/**
 * Stops a process this script did not start in this run (one recorded in the state file of a run that
 * was killed), by PID, with the same ladder, polling until it is gone.
 */
export async function stopRecorded(record: ProcessRecord, ladder: StopLadder): Promise<'stopped' | 'not running'> {
  const running = () => isAlive(record.pid) && programOf(record.pid) === basename(record.command)
  if (!running()) return 'not running'
  for (const [name, waitMs] of [...ladder, ['SIGKILL', 5000] as const]) {
    signal(record.pid, name)
    const deadline = Date.now() + waitMs
    while (running() && Date.now() < deadline) await delay(100)
    if (!running()) break
  }
  return 'stopped'
}

/** Runs a command to its end (initdb, pg_basebackup), as the user given; fails with its output. */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; user?: { uid: number; gid: number }; timeoutMs: number },
): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env,
    encoding: 'utf8',
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    ...(options.user ?? {}),
  })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim()
  if (result.error || result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}):\n${output}`,
    )
  return output
}

/** `count` distinct loopback ports free now: all held open at once, then released. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = []
  try {
    for (let i = 0; i < count; i++) {
      servers.push(
        await new Promise<Server>((resolve, reject) => {
          const server = createServer()
          server.once('error', reject)
          server.listen(0, '127.0.0.1', () => resolve(server))
        }),
      )
    }
    return servers.map((server) => (server.address() as { port: number }).port)
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  }
}

/** True when something accepts connections on the loopback port. */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** True when this process could listen on the loopback port now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** The last lines of a log file, for an error message. */
export function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `probe` every 200 ms until it resolves true; fails past the deadline or once `abort` fires. */
export async function waitUntil(
  what: string,
  abort: AbortSignal,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (abort.aborted) throw new Error(`interrupted while waiting until ${what}`)
    if (await probe().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting until ${what}`)
    await delay(200)
  }
}
