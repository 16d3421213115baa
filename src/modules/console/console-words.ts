// What the console says when the service refuses something, or explains an assessment's status, in the
// words of the person reading (issue 32, item 7): no API paths, field names or message levels, and
// what to do next on the console. The API keeps its own wording for programs; the console translates
// by the refusal's stable reason, never by matching its text.
import type { ConflictError } from '../../domain/errors.ts'
import type { AssessmentStatus } from '../assessment/index.ts'

/** A refusal (409) as a person is told it; `period` names the period and jurisdiction where known. */
export function refusalInWords(
  error: ConflictError,
  period?: { jurisdiction: string; period: number | string },
): string {
  const of = period ? ` of ${period.jurisdiction} ${period.period}` : ''
  switch (error.reason) {
    case 'batch-submitted':
      return 'This batch has already been submitted. Put further changes in a new batch.'
    case 'validation-not-requested':
      return 'The batch has not been checked yet. Choose “Validate the batch”, wait until it says Validated, then submit it.'
    case 'validation-pending':
      return 'The batch is still being checked. Wait until it says Validated, then submit it.'
    case 'validation-stale':
      return 'The batch changed after it was last checked. Validate it again, then submit it.'
    case 'blocking-validation-failures':
      return 'The batch cannot be submitted: its latest check found blocking failures (errors). Fix the records listed below, upload them again, validate the batch again, then submit it.'
    case 'no-pending-validation':
      return 'No check of this batch is waiting or running, so there is nothing to cancel.'
    case 'assessment-in-progress':
      return `The data quality assessment${of} is still running. Wait for it to finish, or cancel it, before asking for another.`
    case 'no-pending-assessment':
      return 'No assessment is waiting or running, so there is nothing to cancel.'
    case 'assessment-not-requested':
      return `No data quality assessment${of} has been run yet. Run one from the assessment page, wait until it says Validated, then declare.`
    case 'assessment-not-validated':
      return `The data quality assessment${of} has not finished, or your data changed since it ran. Run it again from the assessment page and declare once it says Validated.`
    case 'blocking-assessment-outcomes':
      return `The data quality assessment${of} found errors, so the period cannot be declared yet. Fix the data it lists, submit it again, run the assessment again, then declare.`
    default:
      return error.message
  }
}

/**
 * The assessment status's messages for the page: the service's own, except the last (what to do
 * next), which is said as a person would, pointing at the page's buttons rather than the API.
 */
export function assessmentMessagesInWords(s: AssessmentStatus): string[] {
  const told = s.messages.slice(0, -1)
  return [...told, nextStepInWords(s)]
}

function nextStepInWords(s: AssessmentStatus): string {
  switch (s.assessmentStatus) {
    case 'Required':
      return 'Run an assessment and wait until it says Validated.'
    case 'Queued':
    case 'In Progress':
      return 'The assessment is running; this page shows when it finishes.'
    case 'Fault':
      return 'The last assessment stopped on a technical error; run a new one.'
    case 'Validated':
      if (s.hasBlockingFailures)
        return 'The assessment found errors, so the period cannot be declared: fix the data listed below, submit it again, and run the assessment again.'
      if (s.hasNonBlockingFailures)
        return 'The assessment found no errors, so the period can be declared. Its warnings do not block, but look at those listed below and correct what is wrong. A nil activity report is refused while enrolments with activity in the period are held.'
      return 'The assessment found nothing wrong, so the period can be declared. A nil activity report is refused while enrolments with activity in the period are held.'
  }
}
