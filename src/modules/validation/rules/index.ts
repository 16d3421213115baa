// The business-rule catalogue, in the order rules run and their results are listed. A rule is only
// ever added or retired here, never renumbered: technicalRuleId and ruleId are never reused.
// Retired: BRTS01230 / BRDG00021 (No_value where the record shows the value; issue 30: No_value has the
// same outcome as a left-out field for every rule, docs/decisions.md "Rule exactness").
import type { Rule } from '../rule.ts'
import surveyAvailabilityNeedsEmail from './survey-availability-needs-email.ts'
import usiCheckCharacter from './usi-check-character.ts'
import intoffOnlyOffshore from './intoff-only-offshore.ts'
import postcodeAgreesWithState from './postcode-agrees-with-state.ts'
import codeInReferenceDataset from './code-in-reference-dataset.ts'
import datesInOrder from './dates-in-order.ts'
import finalStateNotInFuture from './final-state-not-in-future.ts'
import activityInOpenPeriod from './activity-in-open-period.ts'
import activityBeforeFirstPeriod from './activity-before-first-period.ts'
import deferralNeedsReason from './deferral-needs-reason.ts'
import subjectEnrolmentNotDeferred from './subject-enrolment-not-deferred.ts'
import cancellationNeedsReason from './cancellation-needs-reason.ts'
import deferralWithCommencedSubject from './deferral-with-commenced-subject.ts'
import programEnrolmentHasSubject from './program-enrolment-has-subject.ts'
import lifecycleHistoryKept from './lifecycle-history-kept.ts'
import registeredIsFirstState from './registered-is-first-state.ts'
import referenceResolves from './reference-resolves.ts'
import locationVoidReferenced from './location-void-referenced.ts'
import voidOrphansRecord from './void-orphans-record.ts'
import voidNeedsHeldRecord from './void-needs-held-record.ts'
import voidReasonOrphaned from './void-reason-orphaned.ts'
import duplicateStudent from './duplicate-student.ts'

export const rules: readonly Rule[] = [
  surveyAvailabilityNeedsEmail,
  usiCheckCharacter,
  intoffOnlyOffshore,
  postcodeAgreesWithState,
  codeInReferenceDataset,
  datesInOrder,
  finalStateNotInFuture,
  activityInOpenPeriod,
  activityBeforeFirstPeriod,
  deferralNeedsReason,
  subjectEnrolmentNotDeferred,
  cancellationNeedsReason,
  deferralWithCommencedSubject,
  programEnrolmentHasSubject,
  lifecycleHistoryKept,
  registeredIsFirstState,
  referenceResolves,
  locationVoidReferenced,
  voidOrphansRecord,
  voidNeedsHeldRecord,
  voidReasonOrphaned,
  duplicateStudent,
]
