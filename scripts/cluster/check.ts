// What `npm run cluster -- --check` verifies on a running cluster, all through the load balancer as a
// client would call it: readiness; standard workflows 1 and 2 (token, batch, the minimal unit record,
// validate, submit, reconciliation), which the worker processes run since the API processes run no
// workers; that requests reached every API process (HAProxy's X-Served-By header, and each process's
// own /metrics); that the replica streams and holds the submitted batch; that the API processes keep
// their rate-limit counters in the cluster's Redis.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { REPO_ROOT, redisCommand, type Cluster } from './cluster.ts'
import { query, replicationState, type ReplicationState } from './postgres.ts'

const RECORD_FILES = [
  'student',
  'deliverylocation',
  'subject',
  'subjectoffering',
  'subjectenrolment',
  'program',
  'programoffering',
  'programenrolment',
  'subjectenrolment-in-program',
]

export interface CheckReport {
  /** The load balancer's answer to GET /health/ready. */
  ready: { status: string; checks: Record<string, string> }
  /** Requests answered through the load balancer, by the API process that served each. */
  servedBy: Record<string, number>
  /** Requests (other than health checks and metrics) each API process counted in its own /metrics. */
  countedByApi: Record<string, number>
  batch: { token: string; records: number; submitted: string; reconciledAt: string }
  replication: ReplicationState
  /** The submitted batch as read on the replica. */
  onReplica: { status: string; reconciled: boolean }
  redisKeys: number
}

class CheckFailure extends Error {}

export async function checkCluster(cluster: Cluster, log: (line: string) => void): Promise<CheckReport> {
  const servedBy: Record<string, number> = {}
  const call = async (method: string, path: string, init: { token?: string; json?: unknown; form?: string } = {}) => {
    const headers: Record<string, string> = {}
    if (init.token) headers.authorization = `Bearer ${init.token}`
    if (init.json !== undefined) headers['content-type'] = 'application/json'
    if (init.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    const response = await fetch(`${cluster.lbUrl}${path}`, {
      method,
      headers,
      body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      signal: AbortSignal.timeout(30_000),
    })
    const server = response.headers.get('x-served-by') ?? '(none)'
    servedBy[server] = (servedBy[server] ?? 0) + 1
    const text = await response.text()
    const body = text ? JSON.parse(text) : undefined
    if (!response.ok) throw new CheckFailure(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`)
    return body
  }

  const ready = await call('GET', '/health/ready')
  log(`load balancer ${cluster.lbUrl}/health/ready: ${JSON.stringify(ready)}`)

  const { access_token: token } = await call('POST', '/oauth2/token', {
    form: 'grant_type=client_credentials&client_id=demo-rto-1&client_secret=demo-secret-1',
  })
  const V1 = '/vet-provider/v1'
  const batch = await call('POST', `${V1}/NSW/transaction-batch`, { token })
  const batchPath = `${V1}/NSW/transaction-batch/${batch.transactionBatchToken}`
  for (const file of RECORD_FILES) {
    const record = JSON.parse(await readFile(join(REPO_ROOT, 'examples/minimal-unit-record', `${file}.json`), 'utf8'))
    await call('POST', `${batchPath}/${file.replace('-in-program', '')}`, { token, json: record })
  }
  await call('POST', `${batchPath}/validate`, { token })
  const validated = await poll('validation to be Validated (a worker process runs it)', 60_000, async () => {
    const status = await call('GET', `${batchPath}/validate`, { token })
    return status.validationStatus === 'Validated' ? status : undefined
  })
  if (validated.hasBlockingValidationFailures)
    throw new CheckFailure(`the minimal unit record has blocking validation failures: ${JSON.stringify(validated)}`)
  const submitted = await call('POST', `${batchPath}/submit`, { token })
  const reconciled = await poll('the submission to show in reconciliation (reconciledAt)', 60_000, async () => {
    const detail = await call('GET', batchPath, { token })
    return detail.reconciledAt ? detail : undefined
  })
  log(
    `workflow through the load balancer: batch ${batch.transactionBatchToken}, ${submitted.numberOfRecordsSubmitted} records ${submitted.status}, reconciled at ${reconciled.reconciledAt}`,
  )

  // Spread: every API process answered some of those requests, by the balancer's header and by its own count.
  const countedByApi: Record<string, number> = {}
  for (const api of cluster.apis) {
    const headers: Record<string, string> = process.env.METRICS_TOKEN
      ? { authorization: `Bearer ${process.env.METRICS_TOKEN}` }
      : {}
    const text = await (await fetch(`${api.url}/metrics`, { headers, signal: AbortSignal.timeout(5000) })).text()
    countedByApi[api.name] = text
      .split('\n')
      .filter((line) => line.startsWith('vetrs_http_requests_total{') && !/route="\/(health|metrics)/.test(line))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
  }
  log(`requests through the load balancer by API process: ${JSON.stringify(servedBy)}`)
  log(`requests each API process counted (/metrics, health checks aside): ${JSON.stringify(countedByApi)}`)
  for (const api of cluster.apis) {
    if (!servedBy[api.name]) throw new CheckFailure(`${api.name} served no request through the load balancer`)
    if (!countedByApi[api.name]) throw new CheckFailure(`${api.name} counted no request in its /metrics`)
  }

  const replication = await replicationState(cluster.primary.superuserDsn, cluster.replica.superuserDsn)
  log(
    `replication: ${replication.standbys.map((s) => `${s.application_name} ${s.state} (${s.sync_state}, replay behind by ${s.replay_lag_bytes} bytes)`).join('; ') || 'no standby'}, replica in recovery: ${replication.replicaInRecovery}`,
  )
  if (!replication.replicaInRecovery || !replication.standbys.some((s) => s.state === 'streaming'))
    throw new CheckFailure('the replica is not streaming from the primary')
  const onReplica = await poll('the submitted batch to reach the replica', 30_000, async () => {
    const [row] = await query<{ status: string; reconciled: boolean }>(
      cluster.replica.dsn,
      'SELECT status, reconciled_at IS NOT NULL AS reconciled FROM transaction_batch WHERE transaction_batch_token = $1',
      [batch.transactionBatchToken],
    )
    return row?.status === 'Submitted' && row.reconciled ? row : undefined
  })
  log(`on the replica (${cluster.replica.port}): batch ${batch.transactionBatchToken} ${onReplica.status}, reconciled`)

  const redisPort = Number(new URL(cluster.redisUrl).port)
  const redisKeys = Number((await redisCommand(redisPort, 'DBSIZE')).replace(/^:/, ''))
  log(`Redis ${cluster.redisUrl}: ${redisKeys} keys (rate-limit counters of the API processes)`)
  if (!(redisKeys > 0)) throw new CheckFailure('the API processes keep nothing in the cluster Redis')

  return {
    ready,
    servedBy,
    countedByApi,
    batch: {
      token: batch.transactionBatchToken,
      records: submitted.numberOfRecordsSubmitted,
      submitted: submitted.status,
      reconciledAt: reconciled.reconciledAt,
    },
    replication,
    onReplica,
    redisKeys,
  }
}

async function poll<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new CheckFailure(`waited ${timeoutMs / 1000} s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
