// The held dataset: every submitted version of every record, submit (which fills it), and the held
// state of a record. Other modules reach it only through this file.
export { holdingsRoutes } from './holdings.routes.ts'
export { submitBatch } from './submit.service.ts'
export {
  requestSubmit,
  submitJob,
  submitStatus,
  submitUnderWay,
  type SubmitJobData,
  type SubmitJobOptions,
  type SubmitStatus,
} from './submit-jobs.ts'
export type { SubmitJobProblem, SubmitStage } from './submit-job.repo.ts'
export {
  heldState,
  heldVersions,
  currentHeldVersions,
  searchHeldRecords,
  type HeldVersion,
  jurisdictionsSubmittedUnder,
  periodSubmissions,
  reportedPeriodsAcrossRtos,
  rtoCodesHoldingData,
  rtosHoldingDataOf,
  rtosHoldingDataMatching,
  reportedActivity,
  type ReportedActivity,
  submissionsAcrossRtos,
  collectionSubmissions,
  type PeriodSubmission,
  type SubmissionsAcrossRtos,
} from './holdings.service.ts'
export type { SubmitCondition, SubmitDependencies, SubmitRequest } from './submit.service.ts'
export type { HeldState } from './holdings.schemas.ts'
// What other modules' SQL reads of the held dataset: views, never the tables.
export type { HoldingsViews } from './holdings.repo.ts'
export { heldVersionsOf } from './held-records.service.ts'
