// Uploads the minimal unit record (examples/minimal-unit-record) into a new transaction batch with
// the demo client, and prints what the service answered:
//   npm start                  (in another terminal)
//   npm run example:submit     (VETRS_URL, VETRS_CLIENT_ID, VETRS_CLIENT_SECRET, VETRS_JURISDICTION to change defaults)
import { readFile } from 'node:fs/promises'

const baseUrl = (process.env.VETRS_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '')
const clientId = process.env.VETRS_CLIENT_ID ?? 'demo-rto-1'
const clientSecret = process.env.VETRS_CLIENT_SECRET ?? 'demo-secret-1'
const jurisdiction = process.env.VETRS_JURISDICTION ?? 'NSW'
const files = ['student', 'deliverylocation', 'subject', 'subjectoffering', 'subjectenrolment', 'program', 'programoffering', 'programenrolment', 'subjectenrolment-in-program']

async function request(method: string, path: string, init: { token?: string; json?: unknown; form?: URLSearchParams } = {}) {
  const headers: Record<string, string> = {}
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) })
  const text = await response.text()
  const body = text ? JSON.parse(text) : undefined
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status}\n${JSON.stringify(body, null, 2)}`)
  return body
}

const { access_token: token } = await request('POST', '/oauth2/token', { form: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }) })
const batch = await request('POST', `/vet-provider/v1/${jurisdiction}/transaction-batch`, { token })
console.log(`transaction batch ${batch.transactionBatchToken} (${batch.jurisdiction}, ${batch.status})`)
for (const file of files) {
  const segment = file.replace('-in-program', '')
  const record = JSON.parse(await readFile(new URL(`../examples/minimal-unit-record/${file}.json`, import.meta.url), 'utf8'))
  const result = await request('POST', `/vet-provider/v1/${jurisdiction}/transaction-batch/${batch.transactionBatchToken}/${segment}`, { token, json: record })
  console.log(`  ${result.resourceType.padEnd(17)} ${result.resourceUID}  changeTrackingIdentifier=${result.changeTrackingIdentifier ?? '-'}`)
}
const detail = await request('GET', `/vet-provider/v1/${jurisdiction}/transaction-batch/${batch.transactionBatchToken}`, { token })
console.log(`${detail.totalRecords} records in the batch; it stays ${detail.status} until it is validated and submitted.`)
