// Declarations: an RTO's declaration (or nil activity report) for a reporting period, accepted once the
// period's assessment allows it, and their due dates.
export { declarationRoutes } from './declarations.routes.ts'
export { daysUntil, declarationDueDate, isLate, isOverdue, type DueDate, type DueDateSource } from './due-dates.ts'
export {
  calendarOf,
  calendarPeriods,
  dueDateOf,
  CalendarInputError,
  clearPeriodDueDate,
  grantExtension,
  MAX_REASON_LENGTH,
  setPeriodDueDate,
  withdrawExtension,
  type CalendarExtension,
  type CalendarInput,
  type CalendarPeriod,
  type CalendarProblem,
} from './calendar.service.ts'
export { dueNoticesJob, recordDueNotices, DUE_NOTICES_JOB, type DueNoticesData } from './due-notices.jobs.ts'
export {
  declare,
  listDeclarations,
  declarationsOfRto,
  type DeclarationOfPeriod,
} from './declarations.service.ts'
export {
  periodAcrossRtos,
  periodsAcrossRtos,
  collectionAcrossRtos,
  type CollectionAcrossRtos,
  type RtoPeriodStanding,
} from './collection.service.ts'
export { DeclarationRequest, type DeclarationRecord } from './declarations.schemas.ts'
export {
  acknowledgeWarning,
  acknowledgementsOfDeclarations,
  acknowledgementsOfRun,
  currentDeclarationOf,
  declareAfterReview,
  periodActivity,
  MAX_EXPLANATION,
  SignOffRefusal,
  warningReviewOf,
  type WarningAcknowledgement,
} from './sign-off.service.ts'
