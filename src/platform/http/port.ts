// Checked before the database is opened: a second copy started on a port already taken stops at
// once, with one line, instead of migrating and seeding a database and then failing to listen.
import { createServer } from 'node:net'
import { StartupError } from '../startup.ts'

/** Resolves if host:port can be listened on now; otherwise throws a StartupError saying why. */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return // any free port
  await new Promise<void>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
  })
}

/** The StartupError for a failed listen (also used when the real listen fails after the check). */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const details = { host, port, code: error.code }
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartupError(
        'port-in-use',
        `port ${port} on ${host} is already in use (another copy of the service?): stop it or set PORT`,
        details,
      )
    case 'EACCES':
      return new StartupError(
        'port-not-permitted',
        `not permitted to listen on port ${port}: choose a port above 1023 or run with the right privileges`,
        details,
      )
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(
        'host-not-local',
        `cannot listen on ${host}: it is not an address of this machine (HOST)`,
        details,
      )
    default:
      return error
  }
}
