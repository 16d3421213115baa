// Standard workflow 1 (Submit), written as an SMS developer would write it against a client generated
// from /openapi.json: openapi-fetch typed by openapi-typescript's output. Nothing here is written by
// hand about the service's shapes: paths, parameters, bodies and answers are the generated types, so
// `tsc -p test/generated-client` proves the description is usable, and running it proves it true.
// test/generated-client.test.ts generates ./generated/openapi.ts (not committed) and runs both.
import createClient from 'openapi-fetch'
import type { components, paths } from './generated/openapi.ts'

type Schemas = components['schemas']

/** The minimal unit record (examples/minimal-unit-record), typed as the generated schemas. */
export interface MinimalUnitRecord {
  student: Schemas['Student']
  deliverylocation: Schemas['DeliveryLocation']
  subject: Schemas['Subject']
  subjectoffering: Schemas['SubjectOffering']
  subjectenrolment: Schemas['SubjectEnrolment']
  program: Schemas['Program']
  programoffering: Schemas['ProgramOffering']
  programenrolment: Schemas['ProgramEnrolment']
  subjectenrolmentInProgram: Schemas['SubjectEnrolment']
}

export interface WorkflowOutcome {
  tokenType: string
  created: Schemas['BatchSummary']
  uploads: Schemas['UploadResult'][]
  beforeValidation: { status: number; problemType: string | undefined }
  validation: Schemas['ValidationStatus']
  polls: number
  failedResults: Schemas['ValidationResultPage']
  submitted: Schemas['SubmittedBatch']
  held: Schemas['HeldState']
  search: Schemas['ReconciliationItemPage']
}

function expect<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.data === undefined) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`)
  return answer.data
}

export async function submitWorkflow(baseUrl: string, clientId: string, clientSecret: string, record: MinimalUnitRecord): Promise<WorkflowOutcome> {
  const client = createClient<paths>({ baseUrl })

  // Authentication: a token by client credentials, the form body as the description says.
  const token = expect(await client.POST('/oauth2/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  }), 'token')
  client.use({ onRequest: ({ request }) => { request.headers.set('authorization', `Bearer ${token.access_token}`); return request } })

  const jurisdiction = 'NSW' as const
  const created = expect(await client.POST('/vet-provider/v1/{jurisdiction}/transaction-batch', { params: { path: { jurisdiction } } }), 'create batch')
  const path = { jurisdiction, transactionBatchToken: created.transactionBatchToken }

  const beforeRun = await client.GET('/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}/validate', { params: { path } })
  const beforeValidation = { status: beforeRun.response.status, problemType: beforeRun.error?.type }

  // Upload in any order (spec: principle 3); here the order of examples/minimal-unit-record.
  const base = '/vet-provider/v1/{jurisdiction}/transaction-batch/{transactionBatchToken}' as const
  const uploads = [
    expect(await client.POST(`${base}/student`, { params: { path }, body: record.student }), 'student'),
    expect(await client.POST(`${base}/deliverylocation`, { params: { path }, body: record.deliverylocation }), 'deliverylocation'),
    expect(await client.POST(`${base}/subject`, { params: { path }, body: record.subject }), 'subject'),
    expect(await client.POST(`${base}/subjectoffering`, { params: { path }, body: record.subjectoffering }), 'subjectoffering'),
    expect(await client.POST(`${base}/subjectenrolment`, { params: { path }, body: record.subjectenrolment }), 'subjectenrolment'),
    expect(await client.POST(`${base}/program`, { params: { path }, body: record.program }), 'program'),
    expect(await client.POST(`${base}/programoffering`, { params: { path }, body: record.programoffering }), 'programoffering'),
    expect(await client.POST(`${base}/programenrolment`, { params: { path }, body: record.programenrolment }), 'programenrolment'),
    expect(await client.POST(`${base}/subjectenrolment`, { params: { path }, body: record.subjectenrolmentInProgram }), 'subjectenrolment in program'),
  ]

  // Validate, then poll until Validated.
  expect(await client.POST(`${base}/validate`, { params: { path } }), 'validate')
  let validation: Schemas['ValidationStatus']
  let polls = 0
  for (;;) {
    validation = expect(await client.GET(`${base}/validate`, { params: { path } }), 'validation status')
    polls++
    if (validation.validationStatus === 'Validated') break
    if (polls > 600) throw new Error(`still ${validation.validationStatus} after ${polls} polls`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }

  const failedResults = expect(await client.GET(`${base}/failed-validation-results`, { params: { path, query: { pageSize: 500 } } }), 'failed results')
  const submitted = expect(await client.POST(`${base}/submit`, { params: { path } }), 'submit')

  // Held: the record is In submission, and reconciliation finds it by period (a list parameter)
  // once the batch says reconciliation reflects the submission.
  for (let detail = 0; ; detail++) {
    const batch = expect(await client.GET(base, { params: { path } }), 'batch')
    if (batch.reconciledAt !== null) break
    if (detail > 600) throw new Error('reconciliation did not reflect the submission')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const held = expect(await client.GET('/vet-provider/v1/student/{studentUID}', { params: { path: { studentUID: record.student.studentUID } } }), 'held state')
  const search = expect(await client.GET('/vet-provider/v1/search-by-period', {
    params: { query: { resourceType: 'SubjectEnrolment', reportingPeriods: ['202603', '202604'], pageSize: 500 } },
  }), 'search by period')

  return { tokenType: token.token_type, created, uploads, beforeValidation, validation, polls, failedResults, submitted, held, search }
}
