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
  /**
   * The rows of `query` in key slices of the working copy (issue 30): the rule driven by the staged
   * records of `type`, every group found from one of them (its own row, and records it names looked up
   * by UID), so the slices of those records together find exactly the rows of `query`. Run only over a
   * working copy (scope.stage), each slice one statement; the results are stored over the whole rule
   * (order and grouping as from `query`). On the embedded database a statement over the whole period
   * holds the only connection and the service's thread.
   */
  sliced?: { type: ResourceType; query(scope: AssessmentScope, slice: StageSlice): RawBuilder<AssessmentFindingRow> }
  /**
   * The rule over narrow rows (issue 30): for each piece, a narrow row per record of its `type` read in
   * key slices of the working copy (`keys`, one statement a slice), then `query` over those rows alone
   * (one table of rows a piece, in order), one short statement that reads no body. `query(scope)` is
   * `query` over each piece's `keys` of the whole period, so both find the same rows.
   */
  keyed?: {
    pieces: readonly KeyPiece[]
    query(scope: AssessmentScope, keys: readonly RawBuilder<KeyRow>[]): RawBuilder<AssessmentFindingRow>
  }
}

/** The narrow rows a keyed rule reads of one type. */
export interface KeyPiece {
  type: ResourceType
  keys(scope: AssessmentScope, slice?: StageSlice): RawBuilder<KeyRow>
}

/** A record's narrow row for a keyed rule: what a finding reports of it, its key, and whether it is in the period. */
export interface KeyRow {
  uid: string
  change_tracking_identifier: string | null
  client: string
  key: string
  in_period: boolean
}

/** The staged records of one type whose UID is after `after` and at most `upTo` (either open). */
export interface StageSlice {
  after: string | null
  upTo: string | undefined
}

export const defineAssessmentRule = (rule: AssessmentRule): AssessmentRule => rule
