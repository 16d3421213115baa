// Data quality and declarations: the period's assessment (status, failed outcomes per rule and a page of
// them with who or what each record is, request and cancel) and the RTO's declaration history. Review
// and declare is sign-off-view.ts.
import type { Db } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import type { Page } from '../../domain/page.ts'
import { recordLabel } from './record-content.ts'
import { currentHeldVersions, type HeldVersion } from '../holdings/index.ts'
import {
  cancelAssessment,
  failedAssessmentResultsByRule,
  getAssessmentStatus,
  listFailedAssessmentResults,
  requestAssessment,
  type AssessmentResult,
  type AssessmentStatus,
  type FailedAssessmentResultsOfRule,
} from '../assessment/index.ts'
import {
  acknowledgementsOfDeclarations,
  listDeclarations,
  type DeclarationRecord,
  type WarningAcknowledgement,
} from '../declarations/index.ts'
import {
  recentPeriods,
  RESULTS_PAGE_SIZE,
  UID_PATTERN,
  unlessNone,
  type ConsoleDependencies,
  type PeriodChoice,
} from './console-shared.ts'

/**
 * Every declaration the RTO made for the console's periods, superseded ones included, newest first,
 * and the warnings acknowledged for each (those of the assessment it relied on), by declaration id.
 */
export async function declarationHistory(
  db: Db,
  actor: Actor,
): Promise<{ declarations: DeclarationRecord[]; acknowledgements: Map<string, WarningAcknowledgement[]> }> {
  const page = await listDeclarations(db, actor, {
    reportingPeriodNumber: recentPeriods().map(String),
    pageNumber: 1,
    pageSize: 100,
    sortOrder: 'Desc',
    includeSuperseded: true,
  })
  const declarations = page.results
    .flatMap((row) => (row.declaration ? [row.declaration] : []))
    .sort((a, b) => b.declaredAt.localeCompare(a.declaredAt))
  const acknowledgements = await acknowledgementsOfDeclarations(
    db,
    actor,
    declarations.map((d) => d.declarationId),
  )
  return { declarations, acknowledgements }
}

export interface AssessmentView {
  status: AssessmentStatus
  /** Failed outcomes per rule of the latest completed assessment; undefined before any has completed. */
  rules: FailedAssessmentResultsOfRule[] | undefined
  results: Page<AssessmentResult> | undefined
  /** Who or what each outcome's record is (by its index in the page), from its current held version. */
  labels: ({ title: string; details: string[] } | undefined)[]
}

/** Cancels the period's Queued or In Progress assessment (the API's DELETE .../validate). */
export function cancelPeriodAssessment(db: Db, actor: Actor, choice: PeriodChoice): Promise<void> {
  return cancelAssessment(db, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}

/** The period's assessment status, as GET .../reporting-period/{jurisdiction}/{period}/validate answers it. */
export function assessmentStatus(db: Db, actor: Actor, choice: PeriodChoice): Promise<AssessmentStatus> {
  return getAssessmentStatus(db, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}

/**
 * The data quality assessment of one period and jurisdiction: its status (the API's GET validate),
 * and the latest completed assessment's failed outcomes counted per rule and a page of them, of one
 * rule when a rule is chosen.
 */
export async function assessmentView(
  db: Db,
  actor: Actor,
  choice: PeriodChoice,
  technicalRuleId: string | undefined,
  pageNumber: number,
): Promise<AssessmentView> {
  const params = { jurisdiction: choice.jurisdiction, ReportingPeriodNumber: String(choice.period) }
  const [status, rules, results] = await Promise.all([
    getAssessmentStatus(db, actor, params),
    unlessNone('no-assessment-run', failedAssessmentResultsByRule(db, actor, params)),
    unlessNone(
      'no-assessment-run',
      listFailedAssessmentResults(db, actor, params, { pageNumber, pageSize: RESULTS_PAGE_SIZE }, { technicalRuleId }),
    ),
  ])
  const held = results
    ? await currentHeldVersions(
        db,
        actor,
        results.results.filter((r) => UID_PATTERN.test(r.resourceUID)),
      )
    : new Map<string, HeldVersion>()
  const labels = (results?.results ?? []).map((r) => {
    const version = held.get(`${r.resourceType}/${r.resourceUID.toLowerCase()}`)
    return version ? recordLabel(r.resourceType, version.body) : undefined
  })
  return { status, rules, results, labels }
}

/** Requests an assessment of the period (the API's POST validate): 409 while one is Queued or In Progress. */
export function assess(deps: ConsoleDependencies, actor: Actor, choice: PeriodChoice): Promise<AssessmentStatus> {
  return requestAssessment({ db: deps.db, queue: deps.queue, job: deps.assessmentJob }, actor, {
    jurisdiction: choice.jurisdiction,
    ReportingPeriodNumber: String(choice.period),
  })
}
