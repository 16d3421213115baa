// A loopback TCP proxy in front of a server (PostgreSQL, Redis) that a test or the chaos run can stop and start
// again, to cause an outage of that server for one service without touching the server itself.
// Stopping closes the listening socket and destroys every open connection; starting listens again on
// the same port. Both ends are 127.0.0.1.
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net'

export class TcpProxy {
  readonly #targetPort: number
  readonly #sockets = new Set<Socket>()
  #server: Server | undefined
  #stalled = false
  port = 0

  constructor(targetPort: number) {
    this.#targetPort = targetPort
  }

  /** Listens (again), on the port of the first start, and forwards; connections of a stall are cut. */
  async start(): Promise<this> {
    if (this.#server) await this.stop()
    this.#stalled = false
    const server = createServer((client) => {
      this.#sockets.add(client)
      client.on('close', () => this.#sockets.delete(client))
      if (this.#stalled) return void client.on('error', () => client.destroy()) // accepted, never answered
      const upstream = createConnection({ host: '127.0.0.1', port: this.#targetPort })
      this.#sockets.add(upstream)
      upstream.on('close', () => this.#sockets.delete(upstream))
      for (const socket of [client, upstream])
        socket.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', () => resolve())
    })
    this.port = (server.address() as AddressInfo).port
    this.#server = server
    return this
  }

  /** Refuses new connections and cuts the open ones, as a server that went away. */
  async stop(): Promise<void> {
    const server = this.#server
    this.#server = undefined
    for (const socket of this.#sockets) socket.destroy()
    this.#sockets.clear()
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /**
   * Cuts the open connections and from now on accepts new ones but never answers: a server that is
   * unreachable without refusing (a network partition, a host that is gone). start() ends it.
   */
  async stall(): Promise<void> {
    await this.stop()
    await this.start()
    this.#stalled = true
  }

  /** The URL with its host and port replaced by the proxy's. */
  urlThrough(url: string): string {
    const proxied = new URL(url)
    proxied.hostname = '127.0.0.1'
    proxied.port = String(this.port)
    return proxied.toString()
  }
}
