// Data quality assessments: period-wide rules over the RTO's held data, runs through the queue, and
// the readiness check declarations make. Other modules reach assessment only through this file.
export { assessmentRoutes } from './assessment.routes.ts'
export { assessmentJob } from './assessment.jobs.ts'
export { assessmentRules } from './rules/index.ts'
export { declarationReadiness, periodRefOf, getAssessmentStatus } from './assessment.service.ts'
export type { AssessmentStatus } from './assessment.schemas.ts'
export { PeriodParams } from './assessment.schemas.ts'
export type { AssessmentRule, AssessmentScope, AssessmentFindingRow } from './assessment-rule.ts'
export { defineAssessmentRule } from './assessment-rule.ts'
export type { PeriodRef } from './assessment.repo.ts'
export { subjectEnrolmentsInPeriod, programEnrolmentsInPeriod } from './rules/sql.ts'
