// Every migration, in order. Migrations are only ever added: a released one is never edited, since
// databases in the field have already run it.
import type { Migration } from 'kysely/migration'
import * as foundation from './0001_foundation.ts'
import * as transactionBatches from './0002_transaction_batches.ts'

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_transaction_batches': transactionBatches,
}
