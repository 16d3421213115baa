// The chaos run's database proxy as a process of its own (`ClusterOptions.databaseProxy`): a loopback
// TCP proxy in front of the primary that every service process connects through. SIGUSR1 cuts the
// database (open connections destroyed, new ones refused), SIGUSR2 listens again on the same port,
// SIGTERM stops it. A process of its own so that nothing the chaos script computes can stall the
// database traffic of the whole cluster.
//
//   node src/start.mjs scripts/cluster/db-proxy.ts <target port> <listen port>
import { TcpProxy } from './tcp-proxy.ts'

const [target, listen] = process.argv.slice(2).map(Number)
if (!target || !listen) {
  console.error('usage: db-proxy.ts <target port> <listen port>')
  process.exit(2)
}
// While cut, nothing else keeps the event loop alive: without this the process would end.
setInterval(() => {}, 60_000)
const proxy = new TcpProxy(target)
proxy.port = listen
// One change at a time, in the order the signals came.
let queue: Promise<unknown> = proxy.start().then(() => console.log(`listening on 127.0.0.1:${listen}, to ${target}`))
const then = (what: string, change: () => Promise<unknown>) => {
  queue = queue.then(change).then(() => console.log(`${new Date().toISOString()} ${what}`))
}
process.on('SIGUSR1', () => then('cut', () => proxy.stop()))
process.on('SIGUSR2', () => then('listening again', () => proxy.start()))
process.on('SIGTERM', () => then('stopped', () => proxy.stop().then(() => process.exit(0))))
process.on('SIGINT', () => then('stopped', () => proxy.stop().then(() => process.exit(0))))
