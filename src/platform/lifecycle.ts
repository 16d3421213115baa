// Graceful shutdown on SIGTERM/SIGINT: stop accepting, finish in-flight requests and jobs, close the
// database; give up after the configured timeout rather than hang a deployment.
import type { Logger } from 'pino'

/** What a signal closes: the API service or the worker's core. */
export interface Closable {
  config: { shutdownTimeoutSeconds: number }
  logger: Pick<Logger, 'info' | 'error'>
  close(): Promise<void>
}

export function closeOnSignals(service: Closable): void {
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    service.logger.info({ signal }, 'shutting down')
    const deadline = setTimeout(() => {
      service.logger.error('graceful shutdown timed out')
      process.exit(1)
    }, service.config.shutdownTimeoutSeconds * 1000)
    deadline.unref()
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
}

/** What a process opened at start-up (database, queue, servers), closed once, newest first. Not the reporting resources (modules/resources). */
export class OpenHandles {
  readonly #closers: (() => unknown)[] = []
  #closing: Promise<void> | undefined

  add<Resource>(resource: Resource, close: (resource: Resource) => unknown): Resource {
    this.#closers.push(() => close(resource))
    return resource
  }

  closeAll(): Promise<void> {
    this.#closing ??= (async () => {
      for (const close of this.#closers.reverse()) await close()
    })()
    return this.#closing
  }
}
