// Declarations: an RTO's declaration (or nil activity report) for a reporting period, accepted once the
// period's assessment allows it, and their due dates.
export { declarationRoutes } from './declarations.routes.ts'
export { declarationDueDate, isLate, isOverdue } from './due-dates.ts'
export { declare, listDeclarations, periodAcrossRtos, type RtoPeriodStanding } from './declarations.service.ts'
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
