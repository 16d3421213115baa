// The numbers behind the console's charts (issue 32, item 6), each read from counts the service keeps
// rather than from a pass over records per view: data quality over time (what each period's latest
// completed assessment found, from the counts per rule a run keeps on completion), the activity
// reported per period (holdings' reported_activity, kept by submit), and for operators the collection's
// progress per period (the summary rows of submissions, assessment runs and declarations). Each chart
// comes with the table a page shows beside it: the same numbers, in the same order.
import type { Db, ReadDb } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { FIRST_REPORTING_PERIOD } from '../../domain/reporting-period.ts'
import type { Jurisdiction } from '../../domain/jurisdictions.ts'
import { qualityByPeriod, type PeriodQuality } from '../assessment/index.ts'
import { reportedActivity } from '../holdings/index.ts'
import { recentPeriods } from './console-shared.ts'
import type { CollectionTotals } from './operator.service.ts'
import type { BarChart } from './svg-chart.ts'

/** A period code (202604) as the charts label it: 2026 Q4. */
export const periodLabel = (period: number) => `${Math.floor(period / 100)} Q${period % 100}`

/** A record type as people write it: SubjectEnrolment → Subject enrolment. */
export const typeInWords = (type: string) =>
  type.replace(/(?<=[a-z])([A-Z])/g, (letter: string) => ` ${letter.toLowerCase()}`)

/** A chart and its table: rows are the chart's categories, columns its series. */
export interface ChartWithTable {
  chart: BarChart
  /** The table's caption (its accessible name). */
  caption: string
  /** The heading of the first column (what the categories are). */
  rowHeading: string
  rows: { label: string; cells: number[] }[]
}

function chartWithTable(chart: BarChart, caption: string, rowHeading: string): ChartWithTable {
  return {
    chart,
    caption,
    rowHeading,
    rows: chart.categories.map((label, i) => ({ label, cells: chart.series.map((s) => s.values[i] ?? 0) })),
  }
}

export interface RtoTrends {
  jurisdiction: Jurisdiction
  /** The jurisdictions the RTO has assessments or activity in (the page's choice offers them first). */
  jurisdictionsWithData: string[]
  quality: ChartWithTable | undefined
  /** The rules the assessments found, with their counts in each period assessed (oldest first). */
  rules: { technicalRuleId: string; ruleId: string; level: string; counts: number[] }[]
  qualityPeriods: string[]
  activity: ChartWithTable | undefined
}

/** The RTO's data quality and activity over the recent periods, for one jurisdiction. */
export async function rtoTrends(
  db: Db,
  readDb: ReadDb,
  actor: Actor,
  asked: Jurisdiction | undefined,
): Promise<RtoTrends> {
  const first = Math.max(FIRST_REPORTING_PERIOD, recentPeriods().at(-1)!)
  const [quality, activity] = await Promise.all([qualityByPeriod(db, actor, first), reportedActivity(readDb, actor)])
  const recent = activity.filter((a) => a.reportingPeriodNumber >= first)
  const jurisdictionsWithData = [
    ...new Set([...quality.map((q) => q.jurisdiction), ...recent.map((a) => a.jurisdiction)]),
  ]
  const jurisdiction = asked ?? (jurisdictionsWithData[0] as Jurisdiction | undefined) ?? 'NSW'

  const assessed = quality
    .filter((q) => q.jurisdiction === jurisdiction)
    .sort((a, b) => a.reportingPeriodNumber - b.reportingPeriodNumber)
  const qualityPeriods = assessed.map((q) => periodLabel(q.reportingPeriodNumber))
  const qualityChart: BarChart = {
    id: 'quality-chart',
    title: `Data quality over time, ${jurisdiction}`,
    description: `Errors and warnings the latest data quality assessment of each reporting period found, ${qualityPeriods[0]} to ${qualityPeriods.at(-1)}. The table below gives the same numbers.`,
    categories: qualityPeriods,
    series: [
      { name: 'Errors', values: assessed.map((q) => q.errors) },
      { name: 'Warnings', values: assessed.map((q) => q.warnings) },
    ],
    layout: 'grouped',
  }

  const ofJurisdiction = recent.filter((a) => a.jurisdiction === jurisdiction)
  const activityPeriods = [...new Set(ofJurisdiction.map((a) => a.reportingPeriodNumber))].sort((a, b) => a - b)
  const types = [...new Set(ofJurisdiction.map((a) => a.resourceType))].sort()
  const activityChart: BarChart = {
    id: 'activity-chart',
    title: `Activity reported per period, ${jurisdiction}`,
    description: `Records submitted for each reporting period (by the date of their latest activity), by record type, stacked. The table below gives the same numbers.`,
    categories: activityPeriods.map(periodLabel),
    series: types.map((type) => ({
      name: typeInWords(type),
      values: activityPeriods.map(
        (p) => ofJurisdiction.find((a) => a.reportingPeriodNumber === p && a.resourceType === type)?.records ?? 0,
      ),
    })),
    layout: 'stacked',
  }

  return {
    jurisdiction,
    jurisdictionsWithData,
    quality:
      assessed.length > 0
        ? chartWithTable(qualityChart, `Errors and warnings per reporting period, ${jurisdiction}`, 'Reporting period')
        : undefined,
    rules: rulesAcross(assessed),
    qualityPeriods,
    activity:
      activityPeriods.length > 0
        ? chartWithTable(
            activityChart,
            `Records submitted per reporting period by type, ${jurisdiction}`,
            'Reporting period',
          )
        : undefined,
  }
}

/** Every rule any of the periods' assessments found, errors first, with its count in each period. */
function rulesAcross(assessed: PeriodQuality[]): RtoTrends['rules'] {
  const rules = new Map<string, RtoTrends['rules'][number]>()
  assessed.forEach((period, i) => {
    for (const rule of period.rules) {
      let row = rules.get(rule.technicalRuleId)
      if (!row) {
        row = {
          technicalRuleId: rule.technicalRuleId,
          ruleId: rule.ruleId,
          level: rule.level,
          counts: assessed.map(() => 0),
        }
        rules.set(rule.technicalRuleId, row)
      }
      row.counts[i] = rule.results
    }
  })
  return [...rules.values()].sort((a, b) =>
    a.level === b.level ? a.ruleId.localeCompare(b.ruleId) : a.level === 'Error' ? -1 : 1,
  )
}

/** How many recent periods the operator's progress chart shows. */
export const PROGRESS_PERIODS = 6

/** The periods the operator's progress chart shows, oldest first. */
export const progressPeriods = () => recentPeriods().slice(0, PROGRESS_PERIODS).reverse()

/**
 * The collection's progress for one jurisdiction over the recent periods: RTOs declared, assessed,
 * overdue, from the totals of the collection at a glance of each period (collectionOverPeriods, which
 * reads them all at once).
 */
export function collectionProgress(
  jurisdiction: Jurisdiction,
  periods: readonly number[],
  totalsOf: (period: number) => CollectionTotals,
): ChartWithTable {
  const totals = periods.map(totalsOf)
  const chart: BarChart = {
    id: 'progress-chart',
    title: `The collection’s progress, ${jurisdiction}`,
    description: `RTOs that have declared, have a current data quality assessment, and are overdue, for each of the last ${periods.length} reporting periods. The table below gives the same numbers.`,
    categories: periods.map(periodLabel),
    series: [
      { name: 'Declared', values: totals.map((t) => t.declared), colour: 2 },
      { name: 'Assessed', values: totals.map((t) => t.assessed), colour: 1 },
      { name: 'Overdue', values: totals.map((t) => t.overdue), colour: 0 },
    ],
    layout: 'grouped',
  }
  return chartWithTable(
    chart,
    `RTOs declared, assessed and overdue per reporting period, ${jurisdiction}`,
    'Reporting period',
  )
}
