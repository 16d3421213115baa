// The tables and views of the held dataset, as Kysely sees them: the types every holdings repository
// reads and writes by.
import type { Selectable } from 'kysely'

export type StateInSubmission = 'In submission' | 'Voided in submission' | 'Not found in submission'

export interface HeldRecordTable {
  rto_id: string
  resource_type: string
  resource_uid: string
  submission_seq: string
  is_current: boolean
  state_in_submission: Exclude<StateInSubmission, 'Not found in submission'>
  voided_reason: string | null
  jurisdiction: string
  transaction_batch_token: string
  submitted_by_client: string
  submitted_at: Date
  change_tracking_identifier: string | null
  student_activity_date: string | null
  body: unknown
}

/** Versions submitted In submission, per jurisdiction, period of their latest activity, and type. */
export interface ReportedActivityTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  resource_type: string
  records: string
}

export interface ReportingPeriodSubmissionTable {
  rto_id: string
  jurisdiction: string
  reporting_period: number
  last_submitted_at: Date
  last_submission_seq: string
}

/** Per RTO and jurisdiction, the latest of its submission marks (migration 0035): kept by recordReportingPeriods. */
export interface RtoJurisdictionSubmissionTable {
  rto_id: string
  jurisdiction: string
  last_submitted_at: Date
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    held_record: HeldRecordTable
    reporting_period_submission: ReportingPeriodSubmissionTable
    rto_jurisdiction_submission: RtoJurisdictionSubmissionTable
    reported_activity: ReportedActivityTable
  }
}

/**
 * The views holdings publishes for other modules' SQL (migrations/0020_published_views.ts), for
 * Kysely's `withTables`: they are not tables, so they stay out of Database and its placement list.
 */
export type HoldingsViews = {
  period_last_submission: ReportingPeriodSubmissionTable
}

export type HeldRecordRow = Selectable<HeldRecordTable>
