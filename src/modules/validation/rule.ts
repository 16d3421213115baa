// What a business rule is. Each rule is one module: metadata first (the catalogue is built from it),
// then its check. Record rules look at one record at a time and run in JavaScript over the batch in
// chunks; set rules are one SQL query over the batch and the RTO's held dataset, for everything that
// relates records to each other (references, orphans, duplicates, lifecycle against held history).
// A record rule sees the record without any No_value (no-value.ts): the outcome of a left-out field.
import type { RawBuilder } from 'kysely'
import type { Static } from 'typebox'
import type { ReferenceLookup } from '../reference-data/index.ts'
import type {
  DeliveryLocation,
  Program,
  ProgramEnrolment,
  ProgramOffering,
  Student,
  Subject,
  SubjectEnrolment,
  SubjectOffering,
} from '../resources/index.ts'
import type { ResourceType } from '../../domain/resource-types.ts'
import type { RuleMetadata } from '../../domain/rules.ts'

export type DataSource = 'Transaction_batch' | 'Previously_submitted_data'

/** The records of each type as the upload schemas define them. */
export interface RecordOf {
  Student: Static<typeof Student>
  DeliveryLocation: Static<typeof DeliveryLocation>
  Program: Static<typeof Program>
  ProgramOffering: Static<typeof ProgramOffering>
  ProgramEnrolment: Static<typeof ProgramEnrolment>
  Subject: Static<typeof Subject>
  SubjectOffering: Static<typeof SubjectOffering>
  SubjectEnrolment: Static<typeof SubjectEnrolment>
}

export interface RecordContext {
  /** Today in UTC, YYYY-MM-DD: the run's one notion of "now". */
  today: string
  reference: ReferenceLookup
}

/** One failure of a record rule: the attributes involved and a message naming the offending value. */
export interface Finding {
  accessPath: string[]
  message: string
}

export interface RecordRule<Type extends ResourceType = ResourceType> extends RuleMetadata {
  kind: 'record'
  resourceTypes: readonly Type[]
  check(record: RecordOf[Type], resourceType: Type, context: RecordContext): Finding[]
}

/** What a set rule's query sees: the batch being validated, and the caller's RTO. */
export interface RunScope {
  rto: string
  token: string
  today: string
}

/**
 * A row of a set rule's query. Rows with the same group_key are one execution of the rule and share
 * a validationGroupingId (for example a voided location and the enrolments that still reference it).
 */
export interface SetFindingRow {
  group_key: string
  resource_type: ResourceType
  resource_uid: string
  access_path: string[]
  change_tracking_identifier: string | null
  data_source: DataSource
  message: string
}

export interface SetRule extends RuleMetadata {
  kind: 'set'
  query(scope: RunScope): RawBuilder<SetFindingRow>
  /**
   * The rows of `query` in parts that share no group_key, which the engine runs one statement each: on
   * the embedded database a statement holds the only connection and the service's thread, so shorter
   * statements let requests in between (issue 30). Without it, `query` is one statement.
   */
  queryParts?(scope: RunScope): RawBuilder<SetFindingRow>[]
  /**
   * The rows of `query` in key slices of the batch (issue 30): each part driven by the batch's records
   * of one type, and every group of its rows found from one such record, so a slice of those records (a
   * range of their UIDs) finds whole groups, and the slices of every part together find exactly the
   * rows of `query`. The engine runs each slice as a statement of its own into a temporary table and
   * stores the rule's results from it as from `query` (counts, grouping and order over the whole rule).
   * On the embedded database a whole-batch statement holds the only connection and the service's thread.
   * A rule with `queryParts` gives its sliced parts in the same order, one for each of those parts.
   */
  slicedParts?(scope: RunScope): SlicedPart[]
  /**
   * With `slicedParts`: the rule's rows from what its parts found (the temporary table `pieces`, with
   * the column `part_ord`, each row's part in `slicedParts` order), as one statement over those narrow
   * rows. For a rule whose groups take in records found from other records (a program enrolment and
   * its subject enrolments, students sharing an identity, a voided record and what still references
   * it): each part does the per-record work over one key slice (reading bodies, the part that is long
   * over a whole batch) and keeps a row per record or reference with its group key; this joins and
   * counts them. A part runs after every slice of the parts before it, and may read their rows from
   * `pieces`. Without it, the parts' rows are the rule's rows.
   */
  fromPieces?(scope: RunScope, pieces: RawBuilder<unknown>): RawBuilder<SetFindingRow>
}

/** The batch's records of one type whose UID is after `after` and at most `upTo` (either open). */
export interface KeySlice {
  type: ResourceType
  after?: string | undefined
  upTo?: string | undefined
}

/** A part of a set rule driven by the batch's records of `type`, restricted to one key slice of them. */
export interface SlicedPart {
  type: ResourceType
  /** The part's rows in one key slice; `pieces` is the rule's table of found rows (SetRule.fromPieces). */
  query(slice: KeySlice, pieces: RawBuilder<unknown>): RawBuilder<SetFindingRow>
}

// biome-ignore lint/suspicious/noExplicitAny: each record rule checks its own resource types; the catalogue holds them all
export type Rule = RecordRule<any> | SetRule

export function defineRecordRule<Type extends ResourceType>(rule: Omit<RecordRule<Type>, 'kind'>): RecordRule<Type> {
  return { kind: 'record', ...rule }
}

export function defineSetRule(rule: Omit<SetRule, 'kind'>): SetRule {
  return { kind: 'set', ...rule }
}

/** A failure at the given attributes. */
export const finding = (accessPath: string[], message: string): Finding => ({ accessPath, message })
