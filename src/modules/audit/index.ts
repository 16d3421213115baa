// The audit trail (issue 33): an append-only, hash-chained record of who read or changed whose data.
// Entries are written by the HTTP layer's audit hook for the routes that declare an action (app.ts
// gives it recordAudit) and by the operators' CLI for its changes; operators and an RTO's authorised
// person search them in the console. audit imports no module.
export {
  AUDIT_CSV_COLUMNS,
  AUDIT_PAGE_SIZE,
  auditCsv,
  auditInStatement,
  createAuditWriter,
  recordAuditEntries,
  type AuditWriter,
  EXPORT_MAX_ENTRIES,
  firstDayKept,
  recordAudit,
  removeExpiredAuditDays,
  searchAudit,
  verifyAudit,
  type AuditCursor,
  type AuditFilter,
  type AuditPage,
  type DayVerification,
} from './audit.service.ts'
export { AUDIT_LANES, type ChainBreak, type StoredAuditEntry } from './audit-chain.ts'
