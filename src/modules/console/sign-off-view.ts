// What the authorised person reads before declaring a period (issue 32, item 4): the period's latest
// completed assessment (who asked for it, when), each of its warning rules with its count, a few of
// the records behind it by name and whether (and how) it was acknowledged; the activity held for the
// period by type; when data was last submitted for it; and the current declaration a new one replaces.
// Each part is read from the module that owns it, through its index.
import type { Actor } from '../../platform/auth/scopes.ts'
import {
  type AssessmentResult,
  type AssessmentStatus,
  type CompletedAssessment,
  type FailedAssessmentResultsOfRule,
  getAssessmentStatus,
  latestCompletedAssessment,
  listFailedAssessmentResults,
} from '../assessment/index.ts'
import {
  acknowledgementsOfRun,
  currentDeclarationOf,
  periodActivity,
  type WarningAcknowledgement,
} from '../declarations/index.ts'
import { currentHeldVersions, periodSubmissions } from '../holdings/index.ts'
import type { ConsoleDependencies, PeriodChoice } from './console-shared.ts'
import { recordLabel } from './record-content.ts'

/** The outcomes shown of each warning rule (the rest are a link away, on the assessment page). */
export const EXAMPLES_PER_RULE = 3

export interface WarningReview {
  rule: FailedAssessmentResultsOfRule
  examples: { result: AssessmentResult; label: { title: string; details: string[] } | undefined }[]
  acknowledgement: WarningAcknowledgement | undefined
}

export interface SignOffView {
  choice: PeriodChoice
  status: AssessmentStatus
  /** The latest completed assessment; undefined before one has completed. */
  assessment: CompletedAssessment | undefined
  /** Who asked for the assessment, as a person reads it. */
  preparedBy: string | undefined
  warnings: WarningReview[]
  /** Rules of the assessment at the Error level (they block declaring). */
  errorRules: number
  /** Whether a declaration already relies on this assessment (its acknowledgements are kept as made). */
  declaredOnRun: boolean
  /** Warning rules not acknowledged yet. */
  left: number
  activity: { subjectEnrolments: number; programEnrolments: number; students: number }
  lastSubmittedAt: string | null
  current: Awaited<ReturnType<typeof currentDeclarationOf>>
  /** Whether the period can be declared now: a Validated assessment without errors, every warning acknowledged. */
  ready: boolean
}

const UID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const CONSOLE_CLIENT = 'console:'

/** Who made a request, as a person reads it: someone in the console, or an SMS's API client. */
export const requesterInWords = (clientId: string) =>
  clientId.startsWith(CONSOLE_CLIENT)
    ? `${clientId.slice(CONSOLE_CLIENT.length)}, in the console`
    : `the SMS client ${clientId}`

export async function signOffView(deps: ConsoleDependencies, actor: Actor, choice: PeriodChoice): Promise<SignOffView> {
  const { db } = deps
  const params = { jurisdiction: choice.jurisdiction, ReportingPeriodNumber: String(choice.period) }
  const [status, assessment, activity, submissions, current] = await Promise.all([
    getAssessmentStatus(db, actor, params),
    latestCompletedAssessment(db, actor, params),
    periodActivity(db, actor, choice),
    periodSubmissions(db, actor),
    currentDeclarationOf(db, actor, choice),
  ])
  const warningRules = (assessment?.rules ?? []).filter((r) => r.AssessmentMessageLevel === 'Warning')
  const [kept, examples] = await Promise.all([
    assessment ? acknowledgementsOfRun(db, actor, assessment.runId) : { acknowledgements: [], declared: false },
    Promise.all(
      warningRules.map((rule) =>
        listFailedAssessmentResults(
          db,
          actor,
          params,
          { pageNumber: 1, pageSize: EXAMPLES_PER_RULE },
          { technicalRuleId: rule.technicalRuleId },
        ).then((page) => page.results),
      ),
    ),
  ])
  const held = await currentHeldVersions(
    db,
    actor,
    examples.flat().filter((r) => UID_PATTERN.test(r.resourceUID)),
  )
  const warnings = warningRules.map((rule, index) => ({
    rule,
    examples: examples[index]!.map((result) => {
      const version = held.get(`${result.resourceType}/${result.resourceUID.toLowerCase()}`)
      return { result, label: version ? recordLabel(result.resourceType, version.body) : undefined }
    }),
    acknowledgement: kept.acknowledgements.find((a) => a.technicalRuleId === rule.technicalRuleId),
  }))
  const left = warnings.filter((w) => !w.acknowledgement).length
  const errorRules = (assessment?.rules ?? []).filter((r) => r.AssessmentMessageLevel === 'Error').length
  const submitted = submissions.find(
    (s) => s.jurisdiction === choice.jurisdiction && s.reportingPeriodNumber === choice.period,
  )
  return {
    choice,
    status,
    assessment,
    preparedBy: assessment ? requesterInWords(assessment.requestedByClient) : undefined,
    warnings,
    errorRules,
    declaredOnRun: kept.declared,
    left,
    activity,
    lastSubmittedAt: submitted?.lastSubmittedAt ?? null,
    current,
    ready:
      status.assessmentStatus === 'Validated' && !status.hasBlockingFailures && assessment !== undefined && left === 0,
  }
}
