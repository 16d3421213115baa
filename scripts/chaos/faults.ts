// The fault injector: on a seeded schedule within the load phase, one fault at a time, each followed
// by its recovery. Only what the cluster started is touched, by the PIDs the cluster holds:
//   kill-api     SIGKILL one API process, restart it (the cluster's restart: same command, port, settings)
//   kill-worker  SIGKILL one worker process, restart it
//   db-cut       the loopback TCP proxy (the cluster's dbproxy process) between every service process
//                and the primary stops (open connections cut, new ones refused) for a few seconds, then
//                listens again
//   kill-redis   SIGKILL the cluster's Redis, restart it on its port
//   replica-cut  the loopback TCP proxy between the API processes and the replica (replicaproxy)
//                stops for a few seconds, as db-cut does for the primary; the replica itself keeps
//                streaming from the primary
//   kill-nats    SIGKILL the cluster's nats-server (with --nats: the relay's JetStream broker),
//                restart it on its port with the same data directory
// Each fault's window runs from its start until the load balancer has every API process UP again
// (HAProxy's checks: rise 2 at 1 s), which is what "during the fault" means in the latency figures and
// in the classification of 5xx answers.
import type { Cluster } from '../cluster/cluster.ts'
import { serverStates } from '../cluster/haproxy.ts'
import type { Random } from './records.ts'

export const FAULT_KINDS = ['kill-api', 'kill-worker', 'db-cut', 'kill-redis', 'replica-cut'] as const
/** With the cluster's nats-server (--nats), a kind more. */
export const NATS_FAULT = 'kill-nats'
export type FaultKind = (typeof FAULT_KINDS)[number] | typeof NATS_FAULT

export interface Fault {
  kind: FaultKind
  /** What was hit: api2 (pid 1234), the database proxy, redis (pid ...). */
  target: string
  /** ms on the run's clock: the fault began; it was undone (process restarted, proxy listening); all API processes UP again. */
  start: number
  undone: number
  recovered: number
  /** How long it was down, as drawn (ms). */
  downMs: number
  error?: string
}

export interface FaultOptions {
  cluster: Cluster
  random: Random
  clock: () => number
  log: (line: string) => void
  /**
   * First fault no earlier than this; no new fault after `until`, except a kind not injected yet (the
   * schedule always has every kind, as long as the load lasts: `stop` ends it).
   */
  from: number
  until: number
  /** Between one fault's recovery and the next fault (ms), drawn from this range. */
  gapMs: [number, number]
  /**
   * Submits in flight now. An API process is killed at a moment one is (waiting up to 5 s for one), so
   * that some submits lose their answer: committed or not, the client must find out which.
   */
  submitsInFlight?: () => number
  /** The kinds scheduled (default FAULT_KINDS). */
  kinds?: readonly FaultKind[]
  /** Called once every kind has been injected and recovered from (the run's load may end after it). */
  onEveryKind?: () => void
}

/** Runs the schedule; resolves with every fault injected once the last one has recovered. */
export async function injectFaults(options: FaultOptions, stop: AbortSignal): Promise<Fault[]> {
  const { cluster, random, clock, log } = options
  const faults: Fault[] = []
  // Every kind once, in a seeded order, before any kind comes again: a short run still has them all.
  const kinds = options.kinds ?? FAULT_KINDS
  const order = [...kinds].sort(() => random.next() - 0.5)
  await sleep(Math.max(0, options.from - clock()), stop)
  // Past `until`, only the kinds not injected yet (so that every kind is), while the load lasts.
  for (let i = 0; !stop.aborted && (clock() < options.until || i < order.length); i++) {
    const kind = i < order.length ? order[i]! : random.pick(kinds)
    const fault = await inject(kind, cluster, random, clock, log, options.submitsInFlight)
    faults.push(fault)
    if (i === order.length - 1) options.onEveryKind?.()
    await sleep(random.int(...options.gapMs), stop)
  }
  return faults
}

async function inject(
  kind: FaultKind,
  cluster: Cluster,
  random: Random,
  clock: () => number,
  log: (line: string) => void,
  submitsInFlight: (() => number) | undefined,
): Promise<Fault> {
  const cut = kind === 'db-cut' || kind === 'replica-cut'
  const downMs = cut ? random.int(2000, 6000) : random.int(0, 3000)
  const fault: Fault = { kind, target: '', start: clock(), undone: 0, recovered: 0, downMs }
  try {
    if (cut) {
      const [proxy, what] = kind === 'db-cut' ? [cluster.databaseProxy, 'database'] : [cluster.replicaProxy, 'replica']
      if (!proxy) throw new Error(`the cluster has no ${what} proxy`)
      fault.target = `${what} proxy 127.0.0.1:${proxy.port}`
      log(`fault: cutting the ${what} for ${(downMs / 1000).toFixed(1)} s`)
      fault.start = clock()
      await proxy.cut()
      await sleep(downMs)
      await proxy.restore()
    } else {
      const prefix = { 'kill-api': 'api', 'kill-worker': 'worker', 'kill-redis': 'redis', 'kill-nats': 'nats' }[kind]
      const candidates = cluster.processes.filter((p) => p.spec.name.startsWith(prefix) && p.running)
      if (candidates.length === 0) throw new Error(`no running ${prefix} process`)
      const victim = random.pick(candidates)
      fault.target = `${victim.spec.name} (pid ${victim.pid})`
      if (kind === 'kill-api' && submitsInFlight) {
        const deadline = Date.now() + 5000
        while (submitsInFlight() === 0 && Date.now() < deadline) await sleep(2)
        if (submitsInFlight() > 0) fault.target += ' while a submit was in flight'
      }
      log(`fault: SIGKILL ${fault.target}, restart after ${(downMs / 1000).toFixed(1)} s`)
      fault.start = clock()
      await victim.kill()
      await sleep(downMs)
      const restarted = await cluster.restart(victim.spec.name)
      fault.target += ` -> pid ${restarted.pid}`
    }
    fault.undone = clock()
    await allUp(cluster)
    fault.recovered = clock()
    log(`fault: ${kind} ${fault.target} recovered after ${((fault.recovered - fault.start) / 1000).toFixed(1)} s`)
  } catch (error) {
    fault.error = (error as Error).message
    fault.undone ||= clock()
    fault.recovered = clock()
    log(`fault: ${kind} FAILED: ${fault.error}`)
  }
  return fault
}

/** Until HAProxy has every API process UP again (at most 60 s). */
async function allUp(cluster: Cluster): Promise<void> {
  const statsPort = Number(new URL(cluster.statsUrl).port)
  const deadline = Date.now() + 60_000
  for (;;) {
    const states = await serverStates(statsPort).catch(() => ({}) as Record<string, string>)
    const names = cluster.apis.map((api) => api.name)
    if (names.every((name) => states[name] === 'UP')) return
    if (Date.now() > deadline) throw new Error(`API processes not all UP after 60 s: ${JSON.stringify(states)}`)
    await sleep(200)
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
