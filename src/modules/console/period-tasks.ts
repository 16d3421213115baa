// What is left to do for one reporting period and jurisdiction of an RTO, as a task list (the GOV.UK
// task list pattern): send the data, pass validation, run the data quality assessment, look at its
// warnings, declare. Each task's state is read from the use cases that own it (holdings' submissions,
// the latest batch and its validation, the assessment's status, the declaration and its due date), so
// the list says exactly what the API would; nothing is kept of its own.
import type { Actor } from '../../platform/auth/scopes.ts'
import { utcToday } from '../../domain/reporting-period.ts'
import { latestBatch } from '../batches/index.ts'
import { validationStatusOfOwnBatch } from '../validation/index.ts'
import { isOverdue, warningReviewOf } from '../declarations/index.ts'
import type { ConsoleDependencies, PeriodChoice } from './console-shared.ts'
import { readPeriods, type PeriodReads } from './periods.service.ts'

/** A task's state, in the words of the GOV.UK task list pattern. */
export type TaskState = 'Completed' | 'In progress' | 'Not yet started' | 'Cannot start yet' | 'Needs attention'

export interface PeriodTask {
  /** What to do, as a person says it. */
  name: string
  /** Where it stands, in a sentence (counts, dates, what blocks it). */
  hint: string
  state: TaskState
  /** The console page where it is done (relative to the RTO's pages), or undefined when there is nothing to do there yet. */
  href: string | undefined
}

export interface PeriodTaskList {
  choice: PeriodChoice
  /** The declaration's due date, YYYY-MM-DD. */
  dueDate: string
  /** The due date it replaced when the due date is the RTO's extension (YYYY-MM-DD); undefined otherwise. */
  extendedFrom: string | undefined
  /** Days from today (UTC) to the due date: negative once it has passed. */
  daysLeft: number
  declared: boolean
  overdue: boolean
  tasks: PeriodTask[]
  completed: number
}

const DAY_MS = 86_400_000

export async function periodTaskList(
  deps: ConsoleDependencies,
  actor: Actor,
  choice: PeriodChoice,
  /** The home page's reads (periods.service.ts), which the list shares; read here when they miss the period. */
  given?: PeriodReads,
  today = utcToday(),
): Promise<PeriodTaskList> {
  const { db } = deps
  const reads = given?.periods.includes(choice.period) ? given : await readPeriods(deps, actor, [choice.period])
  const submitted = reads.submissions.find(
    (s) => s.jurisdiction === choice.jurisdiction && s.reportingPeriodNumber === choice.period,
  )
  const assessment = reads.statusOf(choice.jurisdiction, choice.period)
  const {
    declaration,
    declarationDueDate: dueDate,
    extendedFrom,
  } = reads.declarations.of(choice.jurisdiction, choice.period)
  const assessed = assessment.assessmentStatus === 'Validated'
  // Only the warnings task of an undeclared period with warnings says how far their review went.
  const reviewRead = assessed && assessment.hasNonBlockingFailures && !assessment.hasBlockingFailures && !declaration
  const [batch, warningReview] = await Promise.all([
    latestBatch(db, actor, choice.jurisdiction),
    reviewRead ? warningReviewOf(db, actor, choice) : undefined,
  ])
  const ref = batch && { token: batch.transactionBatchToken, jurisdiction: batch.jurisdiction }
  const validation = ref ? await validationStatusOfOwnBatch(db, actor, ref.token) : undefined
  const isSubmitted = submitted?.lastSubmittedAt != null
  const batchHref = ref ? `batches/${encodeURIComponent(ref.jurisdiction)}/${encodeURIComponent(ref.token)}` : 'batches'
  const assessmentHref = `assessment?period=${choice.period}&jurisdiction=${choice.jurisdiction}`
  // Reviewing the warnings and declaring are done on the sign-off page (sign-off.routes.ts).
  const signOffHref = `declare?period=${choice.period}&jurisdiction=${choice.jurisdiction}`
  const on = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '')

  const send: PeriodTask = isSubmitted
    ? {
        name: 'Send your data',
        hint: `${submitted!.enrolmentsHeld.toLocaleString('en-AU')} enrolments of the period held; last sent on ${on(submitted!.lastSubmittedAt)}.`,
        state: 'Completed',
        href: 'batches',
      }
    : {
        name: 'Send your data',
        hint: batch
          ? `A batch under ${choice.jurisdiction} is waiting to be checked and sent.`
          : `Nothing sent under ${choice.jurisdiction} for this period yet: send it from your student management system or import NAT files.`,
        state: batch && batch.status === 'NotSubmitted' ? 'In progress' : 'Not yet started',
        href: batch ? batchHref : 'nat-import',
      }

  let check: PeriodTask
  if (!batch)
    check = {
      name: 'Fix what failed validation',
      hint: 'No data to check yet.',
      state: 'Cannot start yet',
      href: undefined,
    }
  else if (validation && validation.validationStatus !== 'Validated')
    check = {
      name: 'Fix what failed validation',
      hint: 'Your latest batch is being checked.',
      state: 'In progress',
      href: batchHref,
    }
  else if (validation?.hasBlockingValidationFailures)
    check = {
      name: 'Fix what failed validation',
      hint: `Your latest batch has ${validation.numberOfResults.toLocaleString('en-AU')} failed checks, errors among them: fix them and send it again.`,
      state: 'Needs attention',
      href: batchHref,
    }
  else if (validation || batch.status === 'Submitted')
    check = {
      name: 'Fix what failed validation',
      hint: 'Your latest batch passed validation.',
      state: 'Completed',
      href: batchHref,
    }
  else
    check = {
      name: 'Fix what failed validation',
      hint: 'Your latest batch has not been checked yet.',
      state: 'Not yet started',
      href: batchHref,
    }

  const assess: PeriodTask = {
    name: 'Run the data quality assessment',
    ...(assessed
      ? { hint: `Last run on ${on(assessment.completedAt)}.`, state: 'Completed' as const }
      : assessment.assessmentStatus === 'Queued' || assessment.assessmentStatus === 'In Progress'
        ? { hint: 'It is running.', state: 'In progress' as const }
        : assessment.assessmentStatus === 'Fault'
          ? { hint: 'It did not finish: run it again.', state: 'Needs attention' as const }
          : isSubmitted
            ? { hint: 'Your data changed since it last ran, or it has not run yet.', state: 'Not yet started' as const }
            : { hint: 'Send your data first.', state: 'Cannot start yet' as const }),
    href: assessmentHref,
  }

  const review: PeriodTask = {
    name: 'Look at the warnings',
    ...(!assessed
      ? { hint: 'Run the assessment first.', state: 'Cannot start yet' as const, href: undefined }
      : assessment.hasBlockingFailures
        ? { hint: 'The assessment found errors: fix them before declaring.', state: 'Needs attention' as const }
        : assessment.hasNonBlockingFailures
          ? declaration
            ? { hint: 'Declared with the warnings acknowledged.', state: 'Completed' as const }
            : reviewed(warningReview)
          : { hint: 'The assessment found no warnings.', state: 'Completed' as const }),
    href: assessed ? signOffHref : undefined,
  }

  const mayDeclare = assessed && !assessment.hasBlockingFailures
  const declare: PeriodTask = {
    name: 'Declare the period',
    ...(declaration
      ? {
          hint: `${declaration.declarationType === 'Declaration' ? 'Declared' : 'Nil activity reported'} on ${on(declaration.declaredAt)} by ${declaration.RTOUserName}.`,
          state: 'Completed' as const,
        }
      : mayDeclare
        ? {
            hint: 'Your authorised person declares the data is complete and correct.',
            state: 'Not yet started' as const,
          }
        : { hint: 'The assessment has to run, with no errors, first.', state: 'Cannot start yet' as const }),
    href: declaration ? 'declarations' : mayDeclare ? signOffHref : undefined,
  }

  const tasks = [send, check, assess, review, declare]
  return {
    choice,
    dueDate,
    extendedFrom,
    daysLeft: dueDate
      ? Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS)
      : 0,
    declared: declaration !== null,
    overdue: dueDate !== '' && isOverdue(declaration !== null, dueDate, today),
    tasks,
    completed: tasks.filter((task) => task.state === 'Completed').length,
  }
}

/** The warnings task while the period is not declared: how many warning rules are acknowledged. */
function reviewed(review: { warnings: number; acknowledged: number } | undefined): { hint: string; state: TaskState } {
  const { warnings = 0, acknowledged = 0 } = review ?? {}
  if (warnings > 0 && acknowledged >= warnings)
    return { hint: `Every warning rule acknowledged (${warnings}).`, state: 'Completed' }
  if (acknowledged > 0)
    return { hint: `${acknowledged} of ${warnings} warning rules acknowledged.`, state: 'In progress' }
  return {
    hint: 'The assessment found warnings: review and acknowledge each before declaring.',
    state: 'Not yet started',
  }
}
