// The load balancer: HAProxy from Debian's packages (apt-get install -y haproxy), in front of the API
// processes, checking each one's readiness endpoint. The configuration is written for the run into
// the cluster's directory; docs/operations.md shows it as a production configuration.
import { existsSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { ProcessSpec, StopLadder } from './processes.ts'
import { runToEnd } from './processes.ts'

export const HAPROXY_INSTALL = 'apt-get install -y haproxy'

/** Soft stop (SIGUSR1): stop listening, let the requests in flight finish; then hard stop. */
export const HAPROXY_STOP: StopLadder = [
  ['SIGUSR1', 10_000],
  ['SIGTERM', 5_000],
]

/** haproxy on PATH, or where Debian's package puts it (/usr/sbin is not on every user's PATH). */
export function haproxyBinary(): string | undefined {
  const candidates = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin']
  return candidates.map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path))
}

export interface HaproxyConfig {
  dir: string
  port: number
  statsPort: number
  servers: { name: string; port: number }[]
}

/** What HAProxy answers itself when no API process is ready: the service's own 503 problem. */
const UNAVAILABLE_BODY = `${JSON.stringify({
  type: '/problems/service-unavailable',
  title: 'Service unavailable',
  status: 503,
  detail:
    'No API process is ready to take the request (starting, shutting down or the database is unreachable); retry shortly.',
})}\n`

export function writeHaproxyConfig({ dir, port, statsPort, servers }: HaproxyConfig): string {
  const errorFile = join(dir, '503.http')
  writeFileSync(
    errorFile,
    [
      'HTTP/1.1 503 Service Unavailable',
      'content-type: application/problem+json',
      'cache-control: no-store',
      'retry-after: 2',
      'connection: close',
      `content-length: ${Buffer.byteLength(UNAVAILABLE_BODY)}`,
      '',
      UNAVAILABLE_BODY,
    ].join('\r\n'),
  )
  const config = `# Written by npm run cluster (scripts/cluster/haproxy.ts) for this run; see docs/operations.md.
global
  maxconn 4096
  log stdout format raw local0 info
  # Runtime API: drain a server before a rolling restart (set server api/api1 state drain).
  stats socket ${join(dir, 'admin.sock')} mode 600 level admin

defaults
  mode http
  log global
  option httplog
  option dontlognull
  option forwardfor
  # A request whose connection to a server failed (nothing was sent) goes to another server.
  retries 2
  option redispatch 1
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 15s
  timeout http-keep-alive 60s
  timeout queue 10s
  errorfile 503 ${errorFile}

frontend vetrs
  bind 127.0.0.1:${port}
  default_backend api

backend api
  balance leastconn
  option httpchk
  http-check send meth GET uri /health/ready ver HTTP/1.1 hdr host localhost
  http-check expect status 200
  default-server check inter 1s fastinter 500ms downinter 1s rise 2 fall 2 maxconn 100
  # Which API process answered: for the cluster's own check (leave it out in production).
  http-response set-header X-Served-By %s
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port}`).join('\n')}

listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /
  stats refresh 5s
`
  const file = join(dir, 'haproxy.cfg')
  writeFileSync(file, config)
  return file
}

export function haproxySpec(
  binary: string,
  configFile: string,
  config: HaproxyConfig,
  logFile: string,
  expectReady: () => Promise<boolean>,
): ProcessSpec {
  runToEnd(binary, ['-c', '-q', '-f', configFile], { cwd: config.dir, env: process.env, timeoutMs: 10_000 })
  return {
    name: 'haproxy',
    command: binary,
    args: ['-f', configFile, '-db'], // foreground: its PID is the one this script holds
    env: { PATH: process.env.PATH },
    cwd: config.dir,
    logFile,
    stopLadder: HAPROXY_STOP,
    startTimeoutMs: 30_000,
    port: config.port,
    url: `http://127.0.0.1:${config.port}`,
    ready: expectReady,
  }
}

/** Each server of the api backend with its check status (UP, DOWN, MAINT...), from the stats page's CSV. */
export async function serverStates(statsPort: number): Promise<Record<string, string>> {
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`, { signal: AbortSignal.timeout(2000) })).text()
  const [header, ...rows] = csv.trim().split('\n')
  const columns = (header ?? '').replace(/^# /, '').split(',')
  const column = (name: string) => columns.indexOf(name)
  const states: Record<string, string> = {}
  for (const row of rows) {
    const cells = row.split(',')
    const proxy = cells[column('pxname')]
    const server = cells[column('svname')]
    if (proxy === 'api' && server && server !== 'BACKEND' && server !== 'FRONTEND')
      states[server] = cells[column('status')] ?? ''
  }
  return states
}
