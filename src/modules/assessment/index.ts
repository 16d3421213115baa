// Data quality assessments: period-wide rules over the RTO's held data, runs through the queue, and
// the readiness check declarations make. Other modules reach assessment only through this file.
export { assessmentRoutes } from './assessment.routes.ts'
export { assessmentJob } from './assessment.jobs.ts'
export { assessmentRules } from './rules/index.ts'
export {
  declarationReadiness,
  periodRefOf,
  getAssessmentStatus,
  assessmentStatusesOf,
  assessmentStatusesAcrossPeriods,
  assessmentStatusesOfRto,
  type PeriodStatuses,
  requestAssessment,
  cancelAssessment,
  listFailedResults as listFailedAssessmentResults,
  failedResultsByRule as failedAssessmentResultsByRule,
  latestCompletedAssessment,
  resultsByRuleOfRun,
  type CompletedAssessment,
  qualityByPeriod,
  type PeriodQuality,
  type AssessmentDependencies,
  type FailedAssessmentResultsOfRule,
} from './assessment.service.ts'
export type { AssessmentStatus, AssessmentResult } from './assessment.schemas.ts'
export type { AssessJobData } from './assessment.jobs.ts'
export { PeriodParams } from './assessment.schemas.ts'
export type { AssessmentRule, AssessmentScope, AssessmentFindingRow } from './assessment-rule.ts'
export { defineAssessmentRule } from './assessment-rule.ts'
export type { PeriodRef } from './assessment.repo.ts'
export { subjectEnrolmentsInPeriod, programEnrolmentsInPeriod, studentsInPeriod } from './rules/sql.ts'
