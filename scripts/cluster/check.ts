// What `npm run cluster -- --check` verifies on a running cluster, all through the load balancer as a
// client would call it: readiness; standard workflows 1 and 2 (token, batch, the minimal unit record,
// validate, submit, reconciliation), which the worker processes run since the API processes run no
// workers; that requests reached every API process (HAProxy's X-Served-By header, and each process's
// own /metrics); that the replica streams and holds the submitted batch, and that reconciliation through
// the load balancer is read there (the API processes' DATABASE_READ_URL: replica statements in their
// /metrics); that the API processes keep their rate-limit counters in the cluster's Redis.
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
  /** uid-match of the submitted student through the load balancer (a replica-routed endpoint). */
  reconciledStudent: { resourceUID: string; resourceInSubmission: boolean }
  /** Statements each API process ran on the replica's pool while uid-match was polled (vetrs_db_queries_total{pool="replica"}). */
  replicaStatementsByApi: Record<string, number>
  /** Jobs each worker process counted as completed on its own /metrics (WORKER_METRICS_PORT). */
  jobsCompletedByWorker: Record<string, number>
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
  for (const api of cluster.apis)
    countedByApi[api.name] = sumOf(
      await metricsOf(api.url),
      (line) => line.startsWith('vetrs_http_requests_total{') && !/route="\/(health|metrics)/.test(line),
    )
  log(`requests through the load balancer by API process: ${JSON.stringify(servedBy)}`)
  log(`requests each API process counted (/metrics, health checks aside): ${JSON.stringify(countedByApi)}`)
  for (const api of cluster.apis) {
    if (!servedBy[api.name]) throw new CheckFailure(`${api.name} served no request through the load balancer`)
    if (!countedByApi[api.name]) throw new CheckFailure(`${api.name} counted no request in its /metrics`)
  }

  // The jobs of that workflow (validation, reconciliation) ran on the worker processes: the API
  // processes run none (RUN_WORKERS=false), and each worker counts what it ran on its own /metrics.
  const jobsCompletedByWorker: Record<string, number> = {}
  for (const worker of cluster.workers)
    jobsCompletedByWorker[worker.name] = sumOf(await metricsOf(worker.url), (line) =>
      /^vetrs_job_outcomes_total\{.*outcome="completed"/.test(line),
    )
  log(`jobs each worker process completed (its own /metrics): ${JSON.stringify(jobsCompletedByWorker)}`)
  if (cluster.workers.length > 0 && Object.values(jobsCompletedByWorker).reduce((a, b) => a + b, 0) < 2)
    throw new CheckFailure('the workers counted fewer than two completed jobs (a validation and a reconciliation)')

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

  // Reconciliation is routed to the replica: it shows the submitted student once the replica has
  // replayed the indexing, and the API processes count statements on their replica pool.
  const student = JSON.parse(
    await readFile(join(REPO_ROOT, 'examples/minimal-unit-record/student.json'), 'utf8'),
  ).studentUID
  const replicaStatements = async () => {
    const counts: Record<string, number> = {}
    for (const api of cluster.apis)
      counts[api.name] = sumOf(await metricsOf(api.url), (line) =>
        line.startsWith('vetrs_db_queries_total{pool="replica"'),
      )
    return counts
  }
  const before = await replicaStatements() // each process checked the replica at start-up: not counted
  const reconciledStudent = await poll('uid-match to find the student (read on the replica)', 30_000, async () => {
    const match = await call('POST', `${V1}/uid-match`, {
      token,
      json: { resourceType: 'Student', reportingPeriod: '202604', resourceUIDs: [student] },
    })
    const item = match.results[0] as { resourceUID: string; resourceInSubmission: boolean }
    return item.resourceInSubmission ? { resourceUID: item.resourceUID, resourceInSubmission: true } : undefined
  })
  const replicaStatementsByApi = Object.fromEntries(
    Object.entries(await replicaStatements()).map(([api, count]) => [api, count - (before[api] ?? 0)]),
  )
  log(
    `statements on the replica's pool by API process during uid-match (/metrics): ${JSON.stringify(replicaStatementsByApi)}`,
  )
  if (!Object.values(replicaStatementsByApi).some((count) => count > 0))
    throw new CheckFailure('uid-match ran no statement on the replica: is DATABASE_READ_URL set?')
  if (ready.checks?.replica !== 'ok')
    throw new CheckFailure(`/health/ready does not report the replica ok: ${JSON.stringify(ready)}`)

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
    reconciledStudent,
    replicaStatementsByApi,
    jobsCompletedByWorker,
    redisKeys,
  }
}

/** A process's own /metrics, an API's or a worker's (with METRICS_TOKEN when the environment has one). */
async function metricsOf(apiUrl: string): Promise<string> {
  const headers: Record<string, string> = process.env.METRICS_TOKEN
    ? { authorization: `Bearer ${process.env.METRICS_TOKEN}` }
    : {}
  return (await fetch(`${apiUrl}/metrics`, { headers, signal: AbortSignal.timeout(5000) })).text()
}

/** The sum of the values of the Prometheus lines that match. */
function sumOf(metrics: string, matches: (line: string) => boolean): number {
  return metrics
    .split('\n')
    .filter(matches)
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
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
