// The RTO's periods: where each reporting period and jurisdiction it reported under stands (its landing
// page's list; the task list itself is period-tasks.ts).
import type { Actor } from '../../platform/auth/scopes.ts'
import { utcToday } from '../../domain/reporting-period.ts'
import { periodSubmissions } from '../holdings/index.ts'
import { assessmentStatusesAcrossPeriods, getAssessmentStatus, type AssessmentStatus } from '../assessment/index.ts'
import { isOverdue, listDeclarations, type DeclarationRecord } from '../declarations/index.ts'
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
 * Each reporting period and jurisdiction the RTO has reported under or declared for: enrolments held,
 * its latest submission, the data quality assessment, the current declaration and its due date, and
 * whether the declaration is overdue (none yet and the due date has passed).
 */
export async function periodStandings(deps: ConsoleDependencies, actor: Actor): Promise<PeriodStanding[]> {
  const periods = recentPeriods()
  const [declarations, submissions] = await Promise.all([
    listDeclarations(deps.db, actor, {
      reportingPeriodNumber: periods.map(String),
      pageNumber: 1,
      pageSize: 100,
      sortOrder: 'Desc',
      includeSuperseded: false,
    }),
    periodSubmissions(deps.db, actor),
  ])
  const today = utcToday()
  // The assessment statuses of every row, read per jurisdiction for all its periods at once (three
  // reads each, in parallel) rather than three sequential reads per row.
  const rowJurisdictions = [...new Set(declarations.results.map((row) => row.jurisdiction))]
  const statuses = new Map(
    await Promise.all(
      rowJurisdictions.map(
        async (j) => [j, await assessmentStatusesAcrossPeriods(deps.db, [actor.rto], j, periods)] as const,
      ),
    ),
  )
  const standings: PeriodStanding[] = []
  for (const row of declarations.results) {
    const submitted = submissions.find(
      (s) => s.jurisdiction === row.jurisdiction && s.reportingPeriodNumber === row.reportingPeriodNumber,
    )
    const assessment =
      statuses.get(row.jurisdiction)!.get(row.reportingPeriodNumber)?.of(actor.rto) ??
      (await getAssessmentStatus(deps.db, actor, {
        jurisdiction: row.jurisdiction,
        ReportingPeriodNumber: String(row.reportingPeriodNumber),
      }))
    standings.push({
      reportingPeriodNumber: row.reportingPeriodNumber,
      jurisdiction: row.jurisdiction,
      enrolmentsHeld: submitted?.enrolmentsHeld ?? 0,
      lastSubmittedAt: submitted?.lastSubmittedAt ?? null,
      assessment,
      declaration: row.declaration,
      declarationDueDate: row.declarationDueDate,
      overdue: isOverdue(row.declaration !== null, row.declarationDueDate, today),
    })
  }
  return standings
}
