// Standard workflow 4 (declaration readiness) as one call: request the period's data quality
// assessment (or join the one already running), poll it with back-off, read every outcome, and
// declare only when it is Validated with no blocking outcome.
import type {
  AssessmentResult,
  AssessmentStatus,
  DeclarationRequest,
  DeclarationSaved,
  Jurisdiction,
  VetrsOperations,
} from '../client.ts'
import { ConflictReason, ServiceError, WorkflowError } from '../errors.ts'
import { collect } from '../paging.ts'
import type { RequestOptions } from '../request-options.ts'
import { pollUntil, requestOptionsOf, type WaitOptions } from './progress.ts'
import { grouped, type GroupedResults } from './submit.ts'

export interface AssessAndDeclareRequest {
  jurisdiction: Jurisdiction
  reportingPeriod: number
  declarationType?: DeclarationRequest['declarationType']
  /** Required for a Nil_activity_report: earlier than the period's first day. */
  dateOfLastReportableActivity?: string
  RTOUserName: string
  RTOUserEmailAddress: string
  /** Assess and report only; do not declare. */
  assessOnly?: boolean
}

export interface AssessOutcome extends GroupedResults<AssessmentResult> {
  assessment: AssessmentStatus
}

export interface AssessAndDeclareOutcome extends AssessOutcome {
  /** The service's answer; null when blocking outcomes (or assessOnly) stopped it. */
  declaration: DeclarationSaved | null
}

const PENDING = ['Queued', 'In Progress']

/**
 * Requests the period's assessment (or joins the one running), waits until it is Validated (again if
 * new data made it Required meanwhile), and reads every outcome, grouped. A Fault is a WorkflowError.
 */
export async function assess(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  reportingPeriod: number,
  options: WaitOptions = {},
): Promise<AssessOutcome> {
  const { onProgress } = options
  const request = requestOptionsOf(options)
  let assessment: AssessmentStatus | undefined
  // An assessment that finishes after new data for the period is Required again: assess once more.
  for (let attempt = 0; attempt < 3 && assessment?.assessmentStatus !== 'Validated'; attempt++) {
    try {
      await client.requestAssessment(jurisdiction, reportingPeriod, request)
    } catch (error) {
      if (!(error instanceof ServiceError && error.reason === ConflictReason.AssessmentInProgress)) throw error
    }
    assessment = await pollUntil(
      () => client.assessmentStatus(jurisdiction, reportingPeriod, request),
      (s) => !PENDING.includes(s.assessmentStatus),
      {
        ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
        ...(options.signal ? { signal: options.signal } : {}),
        onValue: (s) => onProgress?.({ phase: 'assess', status: s.assessmentStatus }),
      },
    )
    if (assessment.assessmentStatus === 'Fault')
      throw new WorkflowError(
        `the data quality assessment of ${jurisdiction} ${reportingPeriod} ended in Fault: ${assessment.messages.join(' ')}`,
        assessment,
      )
  }
  if (assessment?.assessmentStatus !== 'Validated')
    throw new WorkflowError(
      `the data quality assessment of ${jurisdiction} ${reportingPeriod} is ${assessment?.assessmentStatus}: data keeps arriving for the period`,
      assessment,
    )
  const outcomes = await groupedAssessmentResults(client, jurisdiction, reportingPeriod, request)
  onProgress?.({ phase: 'results', blocking: outcomes.blocking.length, nonBlocking: outcomes.nonBlocking.length })
  return { assessment, ...outcomes }
}

/** Every outcome of the period's latest completed assessment, grouped by AssessmentGroupingId. */
export async function groupedAssessmentResults(
  client: VetrsOperations,
  jurisdiction: Jurisdiction,
  reportingPeriod: number | string,
  options: RequestOptions = {},
): Promise<GroupedResults<AssessmentResult>> {
  const results = await collect(client.assessmentResults(jurisdiction, reportingPeriod, requestOptionsOf(options)))
  return grouped(
    results,
    (r) => r.AssessmentMessageLevel === 'Error',
    (r) => r.AssessmentGroupingId,
  )
}

export async function assessAndDeclare(
  client: VetrsOperations,
  request: AssessAndDeclareRequest,
  options: WaitOptions = {},
): Promise<AssessAndDeclareOutcome> {
  const { jurisdiction, reportingPeriod } = request
  const assessed = await assess(client, jurisdiction, reportingPeriod, options)
  if (assessed.blocking.length > 0 || request.assessOnly) return { ...assessed, declaration: null }
  const declaration = await client.declare(
    {
      reportingPeriodNumber: reportingPeriod,
      jurisdiction,
      declarationType: request.declarationType ?? 'Declaration',
      RTOAcceptanceOfDeclaration: true,
      RTOUserName: request.RTOUserName,
      RTOUserEmailAddress: request.RTOUserEmailAddress,
      ...(request.dateOfLastReportableActivity
        ? { dateOfLastReportableActivity: request.dateOfLastReportableActivity }
        : {}),
    },
    requestOptionsOf(options),
  )
  options.onProgress?.({ phase: 'declare', message: declaration.message })
  return { ...assessed, declaration }
}
