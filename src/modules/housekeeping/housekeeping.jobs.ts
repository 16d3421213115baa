// Daily housekeeping: removes token issuance records whose tokens expired more than the retention
// period ago, idempotency keys whose 24 hours are over (platform/idempotency; an expired key is
// already ignored, this keeps the table small), the audit trail's days older than
// AUDIT_RETENTION_DAYS, whole days (modules/audit: the days kept stay verifiable), and webhook delivery
// attempts older than their retention (the delivery log stays bounded). Each run is recorded under its job id, so a
// redelivered job changes nothing twice.
import type { Db } from '../../platform/db/database.ts'
import { deleteTokenIssuancesExpiredBefore } from '../../platform/auth/clients.repo.ts'
import { deleteIdempotencyKeysExpiredBefore } from '../../platform/idempotency/idempotency.repo.ts'
import type { JobDefinition } from '../../platform/queue/queue.ts'
import { removeExpiredAuditDays } from '../audit/index.ts'
import { deleteWebhookAttemptsBefore } from '../webhooks/index.ts'

export interface HousekeepingData {
  retentionDays: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    housekeeping_run: {
      job_id: string
      ran_at: import('kysely').Generated<Date>
      token_issuances_removed: number
      idempotency_keys_removed: import('kysely').Generated<number>
      audit_days_removed: import('kysely').Generated<number>
    }
  }
}

export const DEFAULT_RETENTION_DAYS = 90

/** The audit trail's retention when none is given (AUDIT_RETENTION_DAYS' default: seven years). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 2557

/** The audit trail's retention (AUDIT_RETENTION_DAYS) and the webhook delivery log's (WEBHOOK_LOG_RETENTION_DAYS; 30 days when not given). */
export interface HousekeepingOptions {
  auditRetentionDays?: number
  webhookLogRetentionDays?: number
}

export function housekeepingJob(db: Db, options: HousekeepingOptions = {}): JobDefinition<HousekeepingData> {
  const auditRetentionDays = options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS
  const webhookLogDays = options.webhookLogRetentionDays ?? 30
  return {
    name: 'housekeeping',
    schedule: { cron: '17 3 * * *', data: { retentionDays: DEFAULT_RETENTION_DAYS } },
    async handle(data, job) {
      await db.transaction().execute(async (tx) => {
        const alreadyRan = await tx
          .selectFrom('housekeeping_run')
          .select('job_id')
          .where('job_id', '=', job.id)
          .executeTakeFirst()
        if (alreadyRan) return
        const cutoff = new Date(Date.now() - data.retentionDays * 86_400_000)
        const removed = await deleteTokenIssuancesExpiredBefore(tx, cutoff)
        const keysRemoved = await deleteIdempotencyKeysExpiredBefore(tx, new Date())
        const auditDaysRemoved = await removeExpiredAuditDays(tx, auditRetentionDays)
        await deleteWebhookAttemptsBefore(tx, new Date(Date.now() - webhookLogDays * 86_400_000))
        await tx
          .insertInto('housekeeping_run')
          .values({
            job_id: job.id,
            token_issuances_removed: removed,
            idempotency_keys_removed: keysRemoved,
            audit_days_removed: auditDaysRemoved,
          })
          .execute()
      })
    },
  }
}

export async function findHousekeepingRun(db: Db, jobId: string) {
  return db.selectFrom('housekeeping_run').selectAll().where('job_id', '=', jobId).executeTakeFirst()
}
