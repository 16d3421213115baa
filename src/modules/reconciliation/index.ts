// Reconciliation: read-only views of the held dataset by period, by UID, and around a record.
export { reconciliationRoutes } from './reconciliation.routes.ts'
export { periodRange } from './reconciliation.service.ts'
