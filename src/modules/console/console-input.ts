// The query strings and forms of the console's pages, as TypeBox schemas. A page reads them leniently:
// each field its schema accepts (converted from text) is kept, anything else is as if not given, so a
// stale or hand-edited link shows the page's default rather than an error. Forms whose fields are
// checked against a use case's own schema (the declaration) are read the same way, then checked there.
import Type, { type Static, type TObject, type TSchema } from 'typebox'
import Value from 'typebox/value'
import { AUDIT_ACTIONS } from '../../domain/audit.ts'
import { jurisdictions } from '../../domain/jurisdictions.ts'
import { resourceTypes } from '../../domain/resource-types.ts'

const oneOf = <const Values extends readonly string[]>(values: Values) =>
  Type.Unsafe<Values[number]>(Type.Union(values.map((value) => Type.Literal(value))))

const PageNumber = Type.Integer({ minimum: 1, maximum: 1_000_000 })
const RuleId = Type.String({ pattern: '^[A-Za-z0-9]{1,20}$' })
const ResourceTypeName = oneOf(resourceTypes)
const JurisdictionCode = oneOf(jurisdictions)
/** A reporting period as a query gives it; the page keeps it only when it is one of those it offers. */
const PeriodText = Type.String({ pattern: '^[0-9]{6}$' })
/** A short text field of a form or query, trimmed. */
const Text = (maxLength: number) => Type.String({ maxLength })

export const PagedQuery = Type.Object({ page: PageNumber })
/** The batch list's filter: a state, and the first characters of a batch's token (base64url characters). */
export const BATCH_STATES = ['not-submitted', 'submitted'] as const
export const BatchListQuery = Type.Object({
  state: oneOf(BATCH_STATES),
  token: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }),
  /** Words of a record in the batch: a name, client identifier, USI, unit or program code, location identifier. */
  q: Text(100),
  page: PageNumber,
})
export const ResultQuery = Type.Object({ rule: RuleId, type: ResourceTypeName, page: PageNumber })
export const PeriodQuery = Type.Object({ period: PeriodText, jurisdiction: JurisdictionCode })
/** A page that shows one jurisdiction's numbers. */
export const JurisdictionQuery = Type.Object({ jurisdiction: JurisdictionCode })
export const AssessmentQuery = Type.Object({ ...PeriodQuery.properties, rule: RuleId, page: PageNumber })
/** The collection at a glance: a period, a jurisdiction and a page of its RTOs. */
export const CollectionQuery = Type.Object({ ...PeriodQuery.properties, page: PageNumber })
export const RecordQuery = Type.Object({ type: Text(100), uid: Text(100), page: PageNumber })
export const RecordSearchQuery = Type.Object({ q: Text(100), page: PageNumber })
/** The assessment's request and cancel forms: the period and jurisdiction exactly as offered. */
export const PeriodForm = Type.Object({ period: Text(10), jurisdiction: Text(10) })
export const DeclarationForm = Type.Object({
  period: Text(200),
  jurisdiction: Text(200),
  declarationType: Text(200),
  dateOfLastReportableActivity: Text(200),
  accept: Text(200),
})
/** A warning rule's acknowledgement on the sign-off page: the run the person reviewed, the rule, an explanation. */
export const AcknowledgeForm = Type.Object({
  ...PeriodForm.properties,
  run: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }),
  rule: RuleId,
  explanation: Text(2000),
})
/** The sign-off's declaration: the declaration's fields, and the declaration it replaces when there is one. */
export const SignOffDeclarationForm = Type.Object({
  ...DeclarationForm.properties,
  replaces: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }),
})
export const ClientForm = Type.Object({
  clientId: Text(1000),
  rto: Text(1000),
  scopes: Type.Array(Text(1000), { maxItems: 20 }),
})
/** A batch's submit form: the number of NAT problems the person acknowledges submitting without. */
export const SubmitForm = Type.Object({ acknowledgeDropped: Text(20) })
export const NatImportForm = Type.Object({ jurisdiction: JurisdictionCode })
/** The jobs page's filter: which jobs to list, and how many minutes of running make a job slow. */
export const JobsQuery = Type.Object({
  show: oneOf(['all', 'failed', 'slow'] as const),
  minutes: Type.Integer({ minimum: 1, maximum: 10_080 }),
})
/** The collection calendar's jurisdiction and the period whose extensions are listed. */
export const CalendarQuery = Type.Object({ jurisdiction: JurisdictionCode, page: PageNumber })
/** A period's due date, or an RTO's extension (rto given): checked by declarations' own use cases. */
export const CalendarForm = Type.Object({
  jurisdiction: Text(20),
  period: Text(20),
  rto: Text(100),
  dueDate: Text(100),
  reason: Text(2000),
})
const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })
/** The audit trail's search (issue 33): who, what, which record, which days, and where the page starts. */
export const AuditQuery = Type.Object({
  rto: Type.String({ pattern: '^[A-Za-z0-9]{1,10}$' }),
  actor: Type.String({ pattern: '^[\\x21-\\x7e]{1,200}$' }),
  action: oneOf(AUDIT_ACTIONS),
  record: Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' }),
  from: Day,
  to: Day,
  before: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}[.][0-9]{1,15}$' }),
})

/** What the schema keeps of a query or form: each field that passes, text trimmed; the rest left out. */
export function readInput<Schema extends TObject>(schema: Schema, input: unknown): Partial<Static<Schema>> {
  const kept: Record<string, unknown> = {}
  if (input === null || typeof input !== 'object') return kept as Partial<Static<Schema>>
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    let value: unknown = (input as Record<string, unknown>)[name]
    if (value === undefined) continue
    if (isArraySchema(property) && !Array.isArray(value)) value = [value]
    value = trimmed(value)
    const converted = Value.Convert(property, value)
    if (Value.Check(property, converted)) kept[name] = converted
  }
  return kept as Partial<Static<Schema>>
}

const isArraySchema = (schema: TSchema) => (schema as { type?: unknown }).type === 'array'

function trimmed(value: unknown): unknown {
  if (typeof value === 'string') return value.trim()
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').map((item: string) => item.trim())
  return value
}
