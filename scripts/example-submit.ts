// Standard workflows 1 and 2 with the demo client: uploads the minimal unit record
// (examples/minimal-unit-record) into a new transaction batch, validates it, prints any failed
// results, and submits it when nothing blocks:
//   npm start                  (in another terminal)
//   npm run example:submit     (VETRS_URL, VETRS_CLIENT_ID, VETRS_CLIENT_SECRET, VETRS_JURISDICTION to change defaults)
// Without VETRS_URL it calls the service where npm start would listen with the same environment
// (HOST and PORT), so `PORT=9090 npm start` and `PORT=9090 npm run example:submit` meet.
import { readFile } from 'node:fs/promises'
import { ConfigError, loadConfig } from '../src/config/config.ts'

const baseUrl = (process.env.VETRS_URL || localServiceUrl()).replace(/\/$/, '')
const clientId = process.env.VETRS_CLIENT_ID ?? 'demo-rto-1'
const clientSecret = process.env.VETRS_CLIENT_SECRET ?? 'demo-secret-1'
const jurisdiction = process.env.VETRS_JURISDICTION ?? 'NSW'
const files = [
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

function localServiceUrl(): string {
  try {
    const { host, port } = loadConfig().http
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
    return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(error.message)
    process.exit(2)
  }
}

/** Stops the script with one message, no stack: the reader wants to know what to do. */
function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

async function request(
  method: string,
  path: string,
  init: { token?: string; json?: unknown; form?: URLSearchParams } = {},
) {
  const headers: Record<string, string> = {}
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
  }).catch((error: Error & { cause?: { code?: string } }) =>
    fail(
      `cannot reach ${baseUrl} (${error.cause?.code ?? error.message}): is the service running at ${baseUrl}? ` +
        'Start it with npm start, or set VETRS_URL (or HOST and PORT as given to the service).',
    ),
  )
  const text = await response.text()
  const body = text ? JSON.parse(text) : undefined
  if (!response.ok) fail(`${method} ${path} answered ${response.status}:\n${JSON.stringify(body, null, 2)}`)
  return body
}

const { access_token: token } = await request('POST', '/oauth2/token', {
  form: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
})
const batch = await request('POST', `/vet-provider/v1/${jurisdiction}/transaction-batch`, { token })
console.log(`transaction batch ${batch.transactionBatchToken} (${batch.jurisdiction}, ${batch.status})`)
for (const file of files) {
  const segment = file.replace('-in-program', '')
  const record = JSON.parse(
    await readFile(new URL(`../examples/minimal-unit-record/${file}.json`, import.meta.url), 'utf8'),
  )
  const result = await request(
    'POST',
    `/vet-provider/v1/${jurisdiction}/transaction-batch/${batch.transactionBatchToken}/${segment}`,
    { token, json: record },
  )
  console.log(
    `  ${result.resourceType.padEnd(17)} ${result.resourceUID}  changeTrackingIdentifier=${result.changeTrackingIdentifier ?? '-'}`,
  )
}
const batchPath = `/vet-provider/v1/${jurisdiction}/transaction-batch/${batch.transactionBatchToken}`
const detail = await request('GET', batchPath, { token })
console.log(`${detail.totalRecords} records in the batch; validating...`)
await request('POST', `${batchPath}/validate`, { token })
let status: { validationStatus?: string; hasBlockingValidationFailures?: boolean }
do {
  await new Promise((resolve) => setTimeout(resolve, 250))
  status = await request('GET', `${batchPath}/validate`, { token })
} while (status.validationStatus !== 'Validated')
const results = await request('GET', `${batchPath}/failed-validation-results?pageSize=500`, { token })
for (const result of results.results) {
  console.log(
    `  ${result.validationMessageLevel.padEnd(7)} ${result.errorNumber} ${result.resourceType} ${result.resourceUID} ${result.accessPath.join(', ')}: ${result.message}`,
  )
}
if (status.hasBlockingValidationFailures) {
  console.log('Blocking failures: correct and re-upload, then validate again. Not submitted.')
} else {
  const submitted = await request('POST', `${batchPath}/submit`, { token })
  console.log(
    `${submitted.status} at ${submitted.submittedAt}: ${submitted.numberOfRecordsSubmitted} records are now held.`,
  )
}
