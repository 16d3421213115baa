// The validation tables as Kysely sees them (validation_run, validation_result): the row types every
// validation repository reads and writes by.
import type { Generated, Selectable } from 'kysely'
import type { MessageLevel } from '../../domain/rules.ts'
import type { DataSource } from './rule.ts'

export type RunStatus = 'Queued' | 'InProgress' | 'Validated' | 'Cancelled'

export interface ValidationRunTable {
  rto_id: string
  run_id: string
  transaction_batch_token: string
  status: RunStatus
  attempt: Generated<number>
  requested_by_client: string
  requested_at: Generated<Date>
  started_at: Date | null
  completed_at: Date | null
  content_version: string | null
  record_count: string | null
  change_seq_sum: string | null
  has_blocking_failures: boolean | null
  has_non_blocking_failures: boolean | null
  result_count: number | null
  /** The results counted per rule (RuleCount[]), kept on completion by the run lifecycle. */
  results_by_rule: Generated<unknown>
  /** The seq of every RESULT_ANCHOR_EVERY-th result (bigint[], platform/runs), kept on completion; null before. */
  result_anchors: Generated<unknown>
  /** The reporting periods of the batch's lifecycle activity dates, from the record pass (integer[]); null before it completed, or before migration 0046. */
  activity_periods: number[] | null
}

export interface ValidationResultTable {
  rto_id: string
  run_id: string
  attempt: number
  seq: Generated<string>
  validation_grouping_id: string
  related_validation_result_count: number
  error_number: string
  rule_id: string
  technical_rule_id: string
  validation_message_level: MessageLevel
  corrective_action: string
  message: string
  resource_type: string
  resource_uid: string
  access_path: string[]
  change_tracking_identifier: string | null
  data_source: DataSource
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    validation_run: ValidationRunTable
    validation_result: ValidationResultTable
  }
}

export type RunRow = Selectable<ValidationRunTable>
export type ResultRow = Omit<Selectable<ValidationResultTable>, 'seq'>

/** What a stored result says, column by column: what the result pages read and a rule's results fill. */
export const RESULT_FIELDS = [
  'validation_grouping_id',
  'related_validation_result_count',
  'error_number',
  'rule_id',
  'technical_rule_id',
  'validation_message_level',
  'corrective_action',
  'message',
  'resource_type',
  'resource_uid',
  'access_path',
  'change_tracking_identifier',
  'data_source',
] as const
