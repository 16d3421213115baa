// What a data quality assessment rule is. Unlike batch rules, an assessment rule looks period-wide at
// the RTO's held data: one SQL query over the current versions in submission, for one jurisdiction and
// reporting period. Metadata first (the catalogue is built from it), then the query.
import type { RawBuilder } from 'kysely'
import type { ResourceType } from '../../domain/resource-types.ts'
import type { RuleMetadata } from '../../domain/rules.ts'

/** What an assessment looks at: one RTO, jurisdiction and reporting period, as at one day. */
export interface AssessmentScope {
  rto: string
  jurisdiction: string
  period: number
  /** First and last day of the period, YYYY-MM-DD. */
  periodStart: string
  periodEnd: string
  /** The earlier of the period's last day and today: states are read as they stood then. */
  asAt: string
  /**
   * The attempt whose working copy of the period (assessment_stage, assessment.stage.ts) the rules
   * read. Without it they read the held data directly (declarations' nil-activity check, plan tests).
   */
  stage?: { runId: string; attempt: number } | undefined
}

/**
 * A row of an assessment rule's query. Rows with the same group_key are one data quality concern and
 * share an AssessmentGroupingId (for example two student records with one USI).
 */
export interface AssessmentFindingRow {
  group_key: string
  resource_type: ResourceType
  resource_uid: string
  change_tracking_identifier: string | null
  /** The client that submitted the assessed version: dataOwner is whether the reader is that client. */
  submitted_by_client: string
  message: string
}

/** An assessment rule: its metadata (an Error blocks declaring; a Warning does not), then its query. */
export interface AssessmentRule extends RuleMetadata {
  query(scope: AssessmentScope): RawBuilder<AssessmentFindingRow>
}

export const defineAssessmentRule = (rule: AssessmentRule): AssessmentRule => rule
