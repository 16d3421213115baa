// The audit trail's vocabulary (issue 33): who can act, and the closed list of actions recorded. The
// HTTP layer names an action on each audited route (platform/http/audit-hook.ts), modules/audit writes
// and verifies the entries, the console searches them by action.

export const AUDIT_ACTOR_KINDS = ['client', 'person', 'operator', 'system'] as const
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number]

/** Reads of personal data: an entry is written before the data leaves, or the data does not leave. */
export const AUDIT_READ_ACTIONS = [
  'record.read', // one record of a batch
  'record.list', // a page of a batch's records of one type
  'held-record.read', // whether a record is held (its held state)
  'held-record.list', // the held records export (also what `vetrs nat export` reads)
  'held-record.search', // search-by-period
  'held-record.match', // uid-match
  'held-record.related', // related-resources
  'validation.results.read', // a batch's failed validation results (they quote record values)
  'console.record.view', // a held record's page in the console
  'console.record.search', // the console's record search (the words searched are not kept)
  'audit.search', // the audit trail's console page
  'audit.export', // the audit trail's CSV
] as const

/** Changes. */
export const AUDIT_CHANGE_ACTIONS = [
  'batch.create',
  'batch.discard',
  'record.upload',
  'record.remove',
  'record.bulk-upload',
  'nat.import',
  'validation.request',
  'validation.cancel',
  'batch.submit',
  'assessment.request',
  'assessment.cancel',
  'declaration.make',
  'declaration.acknowledge-warning', // the console's sign-off review (an explanation is kept, not in the entry)
  'calendar.due-date.set', // an operator sets or clears a period's due date
  'calendar.due-date.clear',
  'calendar.extension.grant', // an operator gives or withdraws an RTO's extension
  'calendar.extension.withdraw',
  'client.register',
  'client.rotate-secret',
  'client.disable',
  'client.enable',
  'reference.release.load',
  'reference.release.publish',
  'webhook.register', // an SMS client's webhook endpoints (the URL and secret are not in the entry)
  'webhook.change',
  'webhook.remove',
  'webhook.rotate-secret',
  'webhook.redeliver',
  'job.retry',
  'session.end',
] as const

export const AUDIT_ACTIONS = [...AUDIT_READ_ACTIONS, ...AUDIT_CHANGE_ACTIONS] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]
export type AuditReadAction = (typeof AUDIT_READ_ACTIONS)[number]

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(value)
}

export function isReadAction(action: AuditAction): action is AuditReadAction {
  return (AUDIT_READ_ACTIONS as readonly string[]).includes(action)
}

/** success: 1xx-3xx; refused: 4xx (not found, not allowed, conflict, invalid); failed: 5xx. */
export type AuditOutcome = 'success' | 'refused' | 'failed'

export function outcomeOfStatus(status: number): AuditOutcome {
  return status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'success'
}

/** One entry as a writer gives it: identifiers only, never a name, a USI, a birth date or a search text. */
export interface AuditEntryInput {
  actorKind: AuditActorKind
  /** The API client id, or the person's subject at the identity provider, or the system part's name. */
  actorId: string
  /** The person's console role, or `client` for an API client; null for the system. */
  actorRole: string | null
  sourceAddress: string | null
  action: AuditAction
  recordType: string | null
  /** The record's UID. */
  recordId: string | null
  batchToken: string | null
  rto: string | null
  outcome: AuditOutcome
  /** The HTTP status answered, when the action came over HTTP. */
  status: number | null
  requestId: string | null
}
