// How the CLI speaks: readable tables and lines by default, one JSON document with --json, a
// progress bar on stderr only when a person is watching, and exit codes a script can act on.
import { MultiBar, Presets, type SingleBar } from 'cli-progress'
import { ConflictReason, NetworkError, ServiceError, UsageError, VetrsError, WorkflowError } from '@vetrs/client'

export const ExitCode = {
  ok: 0,
  /** The service refused or failed a request, or could not be reached. */
  serviceError: 1,
  /** The command line or the configuration is wrong. */
  usage: 2,
  /** The data has blocking validation or assessment failures (or a declaration was refused for them). */
  validationFailures: 3,
} as const

export class Output {
  readonly json: boolean
  readonly #out: NodeJS.WritableStream
  readonly #err: NodeJS.WritableStream & { isTTY?: boolean }
  constructor(
    json: boolean,
    out: NodeJS.WritableStream = process.stdout,
    err: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
  ) {
    this.json = json
    this.#out = out
    this.#err = err
  }

  /** A line for people (left out with --json). */
  say(text = ''): void {
    if (!this.json) this.#out.write(`${text}\n`)
  }

  /** The command's result: JSON with --json, otherwise whatever `human` prints. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.#out.write(`${JSON.stringify(value, null, 2)}\n`)
    else human()
  }

  warn(text: string): void {
    this.#err.write(`${text}\n`)
  }

  table(rows: Record<string, unknown>[], columns: string[]): void {
    if (rows.length === 0) return
    const cells = rows.map((row) => columns.map((column) => format(row[column])))
    const widths = columns.map((column, i) =>
      Math.min(60, Math.max(column.length, ...cells.map((row) => row[i]!.length))),
    )
    const line = (values: string[]) =>
      values
        .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd()
    this.say(line(columns))
    this.say(line(widths.map((w) => '-'.repeat(w))))
    for (const row of cells) this.say(line(row))
  }

  /** A progress bar on stderr when it is a terminal and output is not JSON; otherwise nothing. */
  progress(label: string, total: number): { update(done: number, total?: number): void; stop(): void } {
    if (this.json || !this.#err.isTTY) return { update() {}, stop() {} }
    const multi = new MultiBar(
      {
        format: `${label.padEnd(10)} {bar} {value}/{total}`,
        stream: this.#err as NodeJS.WriteStream,
        clearOnComplete: false,
        hideCursor: true,
      },
      Presets.shades_classic,
    )
    const bar: SingleBar = multi.create(total, 0)
    return {
      update(done, newTotal) {
        if (newTotal !== undefined) bar.setTotal(newTotal)
        bar.update(done)
      },
      stop() {
        multi.stop()
      },
    }
  }
}

function format(value: unknown): string {
  if (value === null || value === undefined) return '-'
  if (Array.isArray(value)) return value.join(', ')
  return String(value)
}

/** Network failures that mean the URL points where no service is: retrying does not help, checking it does. */
const WRONG_ADDRESS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])

const CREDENTIALS_TO_CHECK =
  'the client ID and secret (--client-id and --client-secret, or VETRS_CLIENT_ID and VETRS_CLIENT_SECRET, with login; other commands use the ones `vetrs login` saved), and that the client has not been revoked. A service in development mode has the demo client demo-rto-1 with the secret demo-secret-1.'

/** The token endpoint's refusal of the client ID and secret (401, spec: Authentication). */
function refusedCredentials(error: ServiceError): boolean {
  return (
    error.status === 401 && error.method === 'POST' && /\/oauth2\/token$/.test(error.path) && URL.canParse(error.path)
  )
}

/** Prints a failure the way a person needs it and answers the exit code. */
export function reportFailure(output: Output, error: unknown): number {
  if (error instanceof ServiceError) {
    const problem = error.problem
    if (refusedCredentials(error)) {
      const url = new URL(error.path)
      output.warn(
        `error: the service at ${url.origin} refused the client credentials (POST ${url.pathname} answered ${error.status}: ${problem?.title ?? 'no problem details'})`,
      )
      output.warn(`  check ${CREDENTIALS_TO_CHECK}`)
    } else output.warn(`error: ${error.message}`)
    for (const failure of problem?.errors ?? []) output.warn(`  ${failure.accessPath}: ${failure.message}`)
    if (problem?.reason) output.warn(`  reason: ${problem.reason}`)
    if (problem?.traceId) output.warn(`  traceId: ${problem.traceId}`)
    if (output.json) process.stdout.write(`${JSON.stringify({ error: { status: error.status, problem } }, null, 2)}\n`)
    // The data's fault, not the service's: what blocks is named (a NAT import's dropped lines too).
    return error.reason === ConflictReason.BlockingAssessmentOutcomes ||
      error.reason === ConflictReason.BlockingValidationFailures ||
      error.reason === ConflictReason.NatLinesDropped
      ? ExitCode.validationFailures
      : ExitCode.serviceError
  }
  if (error instanceof UsageError) {
    output.warn(`error: ${error.message}`)
    return ExitCode.usage
  }
  if (error instanceof NetworkError || error instanceof WorkflowError || error instanceof VetrsError) {
    output.warn(`error: ${error.message}`)
    if (error instanceof NetworkError && error.code && WRONG_ADDRESS.has(error.code))
      output.warn(
        '  check the URL (--url or VETRS_URL with login; other commands use the one `vetrs login` saved) and that the service is running there (npm start)',
      )
    return ExitCode.serviceError
  }
  output.warn(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  return ExitCode.serviceError
}
