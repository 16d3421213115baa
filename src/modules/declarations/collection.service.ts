// The collection across RTOs, for operators: where every RTO stands for a jurisdiction's periods (its
// latest submission touching the period, its current declaration, whether it is overdue), and the
// collection page's totals counted in the database. Decisions: docs/decisions.md, Declarations.
import type { Db } from '../../platform/db/database.ts'
import { utcToday } from '../../domain/reporting-period.ts'
import { collectionSubmissions, submissionsAcrossRtos } from '../holdings/index.ts'
import { isOverdue } from './due-dates.ts'
import { dueDatesFor } from './calendar.service.ts'
import * as repo from './declarations.repo.ts'
import { toRecord } from './declaration-record.ts'
import type { DeclarationRecord } from './declarations.schemas.ts'

/** Where one RTO stands for a period under a jurisdiction: an operator's row of the collection. */
export interface RtoPeriodStanding {
  rto: string
  /** When data touching the period was last submitted under the jurisdiction, or null. */
  lastSubmittedAt: string | null
  declarationDueDate: string
  /** Whether the due date is the RTO's extension. */
  extended: boolean
  declaration: DeclarationRecord | null
  overdue: boolean
}

/**
 * The collection at a glance (operators only: across RTOs): every RTO a listing of declarations would
 * give a row for this jurisdiction (those that submitted under it or declared for it), with its
 * latest submission touching the period, its current declaration, and whether it is overdue.
 */
export async function periodAcrossRtos(db: Db, jurisdiction: string, period: number): Promise<RtoPeriodStanding[]> {
  return (await periodsAcrossRtos(db, jurisdiction, [period])).get(period)!
}

/**
 * periodAcrossRtos for several periods at once (the collection and its progress chart): three
 * set-based reads by jurisdiction and period, whatever the number of RTOs and periods, and one pass.
 */
export async function periodsAcrossRtos(
  db: Db,
  jurisdiction: string,
  periods: readonly number[],
): Promise<Map<number, RtoPeriodStanding[]>> {
  const [submissions, { declarations, declaredRtos }, dueDates] = await Promise.all([
    submissionsAcrossRtos(db, jurisdiction, periods),
    repo.currentDeclarationsAcrossRtos(db, jurisdiction, periods),
    dueDatesFor(db, [...periods], { jurisdiction }),
  ])
  const rtos = [...new Set([...submissions.rtos, ...declaredRtos])].sort()
  const declarationOf = new Map(declarations.map((row) => [`${row.reporting_period}:${row.rto_id}`, row]))
  const today = utcToday()
  return new Map(
    periods.map((period) => {
      const submitted = submissions.lastSubmittedAt.get(period)!
      const standings = rtos.map((rto): RtoPeriodStanding => {
        const row = declarationOf.get(`${period}:${rto}`)
        const due = dueDates.of(rto, jurisdiction, period, row?.declaration_type ?? 'Declaration')
        const declarationDue = due.dueDate
        return {
          rto,
          lastSubmittedAt: submitted.get(rto) ?? null,
          declarationDueDate: declarationDue,
          extended: due.source === 'extension',
          declaration: row ? toRecord(row, dueDates) : null,
          overdue: isOverdue(row !== undefined, declarationDue, today),
        }
      })
      return [period, standings]
    }),
  )
}

/** The collection of several periods as the operators' page shows it: totals over every RTO, one page of standings. */
export interface CollectionAcrossRtos {
  /** Every RTO with a row (submitted under the jurisdiction or declared for it), in code order. */
  rtos: string[]
  /** Per period asked for: of those RTOs, how many submitted data touching it, declared it, are overdue. */
  totals: Map<number, { submitted: number; declared: number; overdue: number }>
  /** The standings of the page's RTOs for the shown period, as periodAcrossRtos gives them. */
  rows: RtoPeriodStanding[]
}

/**
 * periodsAcrossRtos without a standing per RTO and period (issue 32, "Performance": at 4,000 RTOs the
 * collection page read 28,000 marks and made 28,000 standings per view for its totals and chart):
 * the totals are counted in the database (marks and current declarations per period) and the overdue
 * count worked out from the period's due date and the few extensions; standings are made only for
 * the page's RTOs. The same numbers as counting the standings (test/operator-kept-submissions.test.ts
 * and the console's operator tests compare them).
 */
export async function collectionAcrossRtos(
  db: Db,
  jurisdiction: string,
  periods: readonly number[],
  page: { period: number; offset: number; limit: number },
): Promise<CollectionAcrossRtos> {
  const [submitters, declarers, submittedCounts, declaredCounts, dueDates] = await Promise.all([
    collectionSubmissions.rtos(db, jurisdiction),
    repo.declaredRtos(db, jurisdiction),
    collectionSubmissions.countsByPeriod(db, jurisdiction, periods),
    repo.currentDeclarationCounts(db, jurisdiction, periods),
    dueDatesFor(db, [...periods], { jurisdiction }),
  ])
  const known = new Set(submitters)
  for (const rto of declarers) known.add(rto)
  const rtos = [...known].sort()
  const shown = rtos.slice(page.offset, page.offset + page.limit)
  // Only the RTOs with an extension can be overdue differently from their period's due date.
  const extended = dueDates.extensions.filter((e) => e.jurisdiction === jurisdiction && known.has(e.rto))
  const [marks, declarations] = await Promise.all([
    collectionSubmissions.ofRtos(db, jurisdiction, page.period, shown),
    repo.currentDeclarationsOfRtos(db, jurisdiction, periods, [...new Set([...shown, ...extended.map((e) => e.rto)])]),
  ])
  const declarationOf = new Map(declarations.map((row) => [`${row.reporting_period}:${row.rto_id}`, row]))
  const today = utcToday()
  const totals = new Map(
    periods.map((period) => {
      const declared = declaredCounts.get(period) ?? 0
      // An RTO without a declaration is due by the Declaration's date (as periodsAcrossRtos says); no
      // RTO has the empty code, so this is the period's date without any extension.
      const periodDue = dueDates.of('', jurisdiction, period, 'Declaration').dueDate
      let overdue = isOverdue(false, periodDue, today) ? rtos.length - declared : 0
      for (const extension of extended) {
        if (extension.period !== period || declarationOf.has(`${period}:${extension.rto}`)) continue
        overdue += Number(isOverdue(false, extension.dueDate, today)) - Number(isOverdue(false, periodDue, today))
      }
      return [period, { submitted: submittedCounts.get(period) ?? 0, declared, overdue }] as const
    }),
  )
  const rows = shown.map((rto): RtoPeriodStanding => {
    const row = declarationOf.get(`${page.period}:${rto}`)
    const due = dueDates.of(rto, jurisdiction, page.period, row?.declaration_type ?? 'Declaration')
    return {
      rto,
      lastSubmittedAt: marks.get(rto) ?? null,
      declarationDueDate: due.dueDate,
      extended: due.source === 'extension',
      declaration: row ? toRecord(row, dueDates) : null,
      overdue: isOverdue(row !== undefined, due.dueDate, today),
    }
  })
  return { rtos, totals, rows }
}
