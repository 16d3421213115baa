// Start-up failures an operator can fix (a bad setting, a port in use, a database that does not
// answer, a data directory another process holds) end the process with one structured log line that
// says what is wrong, never a stack trace and never a credential.
import pino from 'pino'
import { ConfigError } from '../config/config.ts'

/** A start-up failure the operator can fix: `problem` is a stable kind, the message says what to do. */
export class StartupError extends Error {
  readonly problem: string
  /** Safe to log: no passwords, no keys. */
  readonly details: Record<string, unknown>
  constructor(problem: string, message: string, details: Record<string, unknown> = {}) {
    super(message)
    this.problem = problem
    this.details = details
  }
}

/** Logs why start-up failed as one JSON line and ends the process: 2 for configuration, 1 otherwise. */
export function exitOnStartupFailure(error: unknown): never {
  // Its own logger at level fatal: the configured one may not exist yet, and a process that stops
  // must say why even with LOG_LEVEL=silent.
  const logger = pino({ level: 'fatal' })
  if (error instanceof ConfigError) {
    logger.fatal(
      { problem: 'invalid-configuration', problems: error.problems },
      `invalid configuration: ${error.problems.join('; ')}`,
    )
    process.exit(2)
  }
  if (error instanceof StartupError) {
    logger.fatal({ problem: error.problem, ...error.details }, error.message)
    process.exit(1)
  }
  // A bug rather than a setting: the stack helps, still on one line.
  logger.fatal({ problem: 'start-up-failed', err: error }, 'start-up failed')
  process.exit(1)
}
