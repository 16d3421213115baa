// Batch validation: the business-rule engine and its rules, validation runs through the queue, and
// their results. Other modules reach validation only through this file.
export { validationRoutes } from './validation.routes.ts'
export { validationJob } from './validation.jobs.ts'
export {
  submitReadiness,
  requestValidation,
  cancelValidation,
  getValidationStatus,
  validationStatusOfOwnBatch,
  listFailedResults,
  failedResultsByRule,
  type FailedResultsOfRule,
  type ValidateJobData,
  type ValidationDependencies,
} from './validation.service.ts'
export { ValidationResult, type ValidationStatus } from './validation.schemas.ts'
export type { ResultFilter } from './result-pages.repo.ts'
export { rules } from './rules/index.ts'
export type { Rule } from './rule.ts'
