// The client side of the bulk ingestion benchmark (bench/bulk.ts), run as a child process so that it
// never shares the service's event loop. It takes one command at a time over IPC and answers how long
// the upload of the same Students took:
//  - single: one POST .../student per Student, `connections` at a time over keep-alive connections,
//    bodies serialised before the clock starts (the most favourable client for record-by-record);
//  - bulk: the SDK's vetrs.uploadMany (NDJSON, gzip, requests cut to the limits, the next compressed
//    while the current is in flight), all of its work on the clock, after its token and the offer
//    were fetched once.
import { Agent, request as httpRequest } from 'node:http'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { Vetrs } from '../packages/client/src/index.ts'
import type { Student } from '../packages/client/src/index.ts'
import { benchStudents } from './bench-students.ts'

export interface ClientCommand {
  mode: 'single' | 'bulk' | 'copy'
  baseUrl: string
  token: string
  batch: string
  count: number
  connections: number
  /** copy only: the database, the scratch table of batch_record's shape, and the batch's RTO. */
  copy?: { databaseUrl: string; table: string; rto: string }
}

export interface ClientResult {
  mode: ClientCommand['mode']
  count: number
  ms: number
  /** Status codes of the single uploads, or the bulk requests. */
  statuses: Record<string, number>
  /** Records the service said it created (bulk: from its answers; single: 201 answers). */
  created: number
  requests: number
}

async function single(command: ClientCommand, students: Student[]): Promise<ClientResult> {
  const { hostname, port } = new URL(command.baseUrl)
  const path = `/vet-provider/v1/NSW/transaction-batch/${encodeURIComponent(command.batch)}/student`
  const bodies = students.map((student) => Buffer.from(JSON.stringify(student)))
  const agent = new Agent({ keepAlive: true, maxSockets: command.connections })
  const statuses: Record<string, number> = {}
  const post = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: hostname,
          port,
          method: 'POST',
          path,
          agent,
          headers: {
            authorization: `Bearer ${command.token}`,
            'content-type': 'application/json',
            'content-length': String(body.length),
          },
        },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
          response.on('error', reject)
        },
      )
      outgoing.setTimeout(30_000, () => outgoing.destroy(new Error('no answer in 30 s')))
      outgoing.on('error', reject)
      outgoing.end(body)
    })
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: command.connections }, async () => {
      while (next < bodies.length) {
        const status = await post(bodies[next++]!)
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }),
  )
  const ms = performance.now() - started
  agent.destroy()
  return { mode: 'single', count: bodies.length, ms, statuses, created: statuses['201'] ?? 0, requests: bodies.length }
}

const clients = new Map<string, Vetrs>()

async function bulk(command: ClientCommand, students: Student[]): Promise<ClientResult> {
  let vetrs = clients.get(command.baseUrl)
  if (!vetrs) {
    vetrs = new Vetrs({
      baseUrl: command.baseUrl,
      credentials: { clientId: 'demo-rto-1', clientSecret: 'demo-secret-1' },
    })
    await vetrs.authenticate()
    if (!(await vetrs.bulkUploadOffer())) throw new Error('the service does not offer the bulk upload')
    clients.set(command.baseUrl, vetrs)
  }
  const started = performance.now()
  const outcome = await vetrs.uploadMany('NSW', command.batch, students)
  const ms = performance.now() - started
  if (!outcome.bulk) throw new Error('uploadMany did not use the bulk upload')
  return {
    mode: 'bulk',
    count: students.length,
    ms,
    statuses: { 200: outcome.requests },
    created: outcome.created ?? 0,
    requests: outcome.requests,
  }
}

/** One field of COPY's text format: backslash, and the characters it would read as delimiters, escaped. */
function copyField(value: string): string {
  return value.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'))
}

const copyConnections = new Map<string, pg.Client>()

/**
 * PostgreSQL's own COPY of the same Students as rows of batch_record's shape (its columns, defaults,
 * indexes and lz4 bodies) into a scratch table: the ceiling of any service in front of the database.
 * The COPY text is built before the clock starts (the most favourable client: what is timed is the
 * database taking the rows in, and the bytes travelling over loopback), in pieces of 1,000 rows.
 */
async function copy(command: ClientCommand, students: Student[]): Promise<ClientResult> {
  const target = command.copy
  if (!target) throw new Error('copy needs a database and table')
  let client = copyConnections.get(target.databaseUrl)
  if (!client) {
    client = new pg.Client({ connectionString: target.databaseUrl })
    await client.connect()
    copyConnections.set(target.databaseUrl, client)
  }
  const fixed = `${copyField(target.rto)}\t${copyField(command.batch)}\tStudent\t`
  const pieces: Buffer[] = []
  for (let i = 0; i < students.length; i += 1000) {
    let text = ''
    for (const student of students.slice(i, i + 1000))
      text += `${fixed}${student.studentUID}\t${student.changeTrackingIdentifier == null ? '\\N' : copyField(student.changeTrackingIdentifier)}\tf\t${copyField(JSON.stringify(student))}\tdemo-rto-1\n`
    pieces.push(Buffer.from(text))
  }
  const started = performance.now()
  const stream = client.query(
    copyFrom(
      `COPY ${target.table} (rto_id, transaction_batch_token, resource_type, resource_uid, change_tracking_identifier, is_voided, body, uploaded_by_client) FROM STDIN`,
    ),
  )
  await pipeline(Readable.from(pieces), stream)
  const ms = performance.now() - started
  return { mode: 'copy', count: students.length, ms, statuses: {}, created: Number(stream.rowCount), requests: 1 }
}

if (process.send) {
  const cache = new Map<number, Student[]>()
  process.on('message', (message) => {
    const command = message as ClientCommand | 'exit'
    if (command === 'exit') {
      for (const client of copyConnections.values()) void client.end()
      process.disconnect()
      return
    }
    const students = cache.get(command.count) ?? benchStudents(command.count)
    cache.set(command.count, students)
    const work =
      command.mode === 'single'
        ? single(command, students)
        : command.mode === 'bulk'
          ? bulk(command, students)
          : copy(command, students)
    work.then(
      (result) => process.send!({ result }),
      (error: unknown) => process.send!({ error: String(error instanceof Error ? error.stack : error) }),
    )
  })
}
