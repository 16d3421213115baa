// API clients for the simulated SMSs, registered the way an operator registers one: the service's own
// CLI (`npm run cli -- clients add <id> --rto <code>`), run against the cluster's database with the
// cluster's settings, its one-time secret read from what it prints.
import { spawn } from 'node:child_process'
import { REPO_ROOT, type Cluster } from '../cluster/cluster.ts'

export interface Registered {
  rto: string
  clientId: string
  clientSecret: string
}

export async function registerClients(cluster: Cluster, rtos: string[], concurrency = 3): Promise<Registered[]> {
  const out: Registered[] = []
  let next = 0
  const worker = async () => {
    while (next < rtos.length) {
      const rto = rtos[next++]!
      const clientId = `chaos-sms-${rto}`
      const printed = await cli(cluster, ['clients', 'add', clientId, '--rto', rto])
      const secret = /client_secret:\s+(\S+)/.exec(printed)?.[1]
      if (!secret) throw new Error(`clients add ${clientId} printed no secret:\n${printed}`)
      out.push({ rto, clientId, clientSecret: secret })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return out.sort((a, b) => a.rto.localeCompare(b.rto))
}

function cli(cluster: Cluster, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/start.mjs', 'src/cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...cluster.serviceEnv, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve(output)
      else reject(new Error(`npm run cli -- ${args.join(' ')} exited ${code}:\n${output}`))
    })
  })
}
