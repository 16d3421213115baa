// Standard workflow 4 (declaration readiness) as one call: request the period's data quality
// assessment (or join the one already running), poll it with back-off, read every outcome, and
// declare only when it is Validated with no blocking outcome.
import type {
  AssessmentResult,
  AssessmentStatus,
  DeclarationRequest,
  DeclarationSaved,
  Jurisdiction,
  VetrsClient,
} from '../client.ts'
import { ServiceError, WorkflowError } from '../errors.ts'
import { collect } from '../paging.ts'
import { pollUntil, type OnProgress } from './progress.ts'
import { groupBy, type ResultGroup } from './submit.ts'

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
  timeoutMs?: number
  onProgress?: OnProgress
}

export interface AssessAndDeclareOutcome {
  assessment: AssessmentStatus
  blocking: ResultGroup<AssessmentResult>[]
  nonBlocking: ResultGroup<AssessmentResult>[]
  /** The service's answer; null when blocking outcomes (or assessOnly) stopped it. */
  declaration: DeclarationSaved | null
}

const PENDING = ['Queued', 'In Progress']

export async function assessAndDeclare(
  client: VetrsClient,
  request: AssessAndDeclareRequest,
): Promise<AssessAndDeclareOutcome> {
  const { jurisdiction, reportingPeriod, onProgress } = request
  let assessment: AssessmentStatus | undefined
  // An assessment that finishes after new data for the period is Required again: assess once more.
  for (let attempt = 0; attempt < 3 && assessment?.assessmentStatus !== 'Validated'; attempt++) {
    try {
      await client.requestAssessment(jurisdiction, reportingPeriod)
    } catch (error) {
      if (!(error instanceof ServiceError && error.reason === 'assessment-in-progress')) throw error
    }
    assessment = await pollUntil(
      () => client.assessmentStatus(jurisdiction, reportingPeriod),
      (s) => !PENDING.includes(s.assessmentStatus),
      {
        ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
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
  const results = await collect(client.assessmentResults(jurisdiction, reportingPeriod))
  const blocking = groupBy(
    results.filter((r) => r.AssessmentMessageLevel === 'Error'),
    (r) => r.AssessmentGroupingId,
  )
  const nonBlocking = groupBy(
    results.filter((r) => r.AssessmentMessageLevel !== 'Error'),
    (r) => r.AssessmentGroupingId,
  )
  onProgress?.({ phase: 'results', blocking: blocking.length, nonBlocking: nonBlocking.length })
  if (blocking.length > 0 || request.assessOnly) return { assessment, blocking, nonBlocking, declaration: null }
  const declaration = await client.declare({
    reportingPeriodNumber: reportingPeriod,
    jurisdiction,
    declarationType: request.declarationType ?? 'Declaration',
    RTOAcceptanceOfDeclaration: true,
    RTOUserName: request.RTOUserName,
    RTOUserEmailAddress: request.RTOUserEmailAddress,
    ...(request.dateOfLastReportableActivity
      ? { dateOfLastReportableActivity: request.dateOfLastReportableActivity }
      : {}),
  })
  onProgress?.({ phase: 'declare', message: declaration.message })
  return { assessment, blocking, nonBlocking, declaration }
}
