// The RTO's periods: where each reporting period and jurisdiction it reported under stands (its landing
// page's list; the task list itself is period-tasks.ts), from one set of reads both share.
import type { Actor } from '../../platform/auth/scopes.ts'
import { utcToday } from '../../domain/reporting-period.ts'
import { periodSubmissions, type PeriodSubmission } from '../holdings/index.ts'
import { assessmentStatusesOfRto, type AssessmentStatus } from '../assessment/index.ts'
import { declarationsOfRto, isOverdue, type DeclarationRecord } from '../declarations/index.ts'
import { recentPeriods, type ConsoleDependencies } from './console-shared.ts'

/** Where one reporting period stands in one jurisdiction, for the RTO's home page. */
export interface PeriodStanding {
  reportingPeriodNumber: number
  jurisdiction: string
  enrolmentsHeld: number
  lastSubmittedAt: string | null
  assessment: AssessmentStatus
  declaration: DeclarationRecord | null
  declarationDueDate: string
  overdue: boolean
}

/**
 * What the home page knows of the RTO's recent periods under every jurisdiction, read once: its
 * submissions, its declarations with their due dates, its assessment statuses. The standings and the
 * task list are both made from it (they used to read the same rows again each: about 30 statements a
 * view; issue 32, "Performance").
 */
export interface PeriodReads {
  periods: readonly number[]
  submissions: PeriodSubmission[]
  declarations: Awaited<ReturnType<typeof declarationsOfRto>>
  statusOf(jurisdiction: string, period: number): AssessmentStatus
}

/** The reads of PeriodReads, in parallel: the recent periods unless others are asked for. */
export async function readPeriods(
  deps: ConsoleDependencies,
  actor: Actor,
  periods: readonly number[] = recentPeriods(),
): Promise<PeriodReads> {
  const [declarations, submissions, statusOf] = await Promise.all([
    declarationsOfRto(deps.db, actor, periods),
    periodSubmissions(deps.db, actor),
    assessmentStatusesOfRto(deps.db, actor.rto, periods),
  ])
  return { periods, submissions, declarations, statusOf }
}

/**
 * Each reporting period and jurisdiction the RTO has reported under or declared for (the rows GET
 * /declaration answers for the recent periods): enrolments held, its latest submission, the data quality
 * assessment, the current declaration and its due date, and whether the declaration is overdue (none
 * yet and the due date has passed).
 */
export function periodStandings(reads: PeriodReads, today = utcToday()): PeriodStanding[] {
  // At most a listing's page of 100 rows, as the page showed when it read them through GET /declaration.
  return reads.declarations.rows.slice(0, 100).map((row) => {
    const submitted = reads.submissions.find(
      (s) => s.jurisdiction === row.jurisdiction && s.reportingPeriodNumber === row.reportingPeriodNumber,
    )
    return {
      reportingPeriodNumber: row.reportingPeriodNumber,
      jurisdiction: row.jurisdiction,
      enrolmentsHeld: submitted?.enrolmentsHeld ?? 0,
      lastSubmittedAt: submitted?.lastSubmittedAt ?? null,
      assessment: reads.statusOf(row.jurisdiction, row.reportingPeriodNumber),
      declaration: row.declaration,
      declarationDueDate: row.declarationDueDate,
      overdue: isOverdue(row.declaration !== null, row.declarationDueDate, today),
    }
  })
}
