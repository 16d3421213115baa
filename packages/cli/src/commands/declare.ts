// vetrs assess|declare: standard workflow 4 a step at a time.
import type { Command } from 'commander'
import {
  ConflictReason,
  ServiceError,
  UsageError,
  type AssessmentResult,
  type AssessmentStatus,
  type GroupedResults,
} from '@vetrs/client'
import { Context } from '../context.ts'
import { ExitCode } from '../output.ts'
import { printAssessmentResults } from '../results.ts'

const PENDING = ['Queued', 'In Progress']

function period(value: string): number {
  if (!/^\d{4}0[1-4]$/.test(value))
    throw new UsageError(`--period ${value}: a reporting period is {CalendarYear}{Quarter}, e.g. 202604`)
  return Number(value)
}

export function registerDeclarations(program: Command): void {
  program
    .command('assess')
    .description('run the data quality assessment of a reporting period and print its outcomes')
    .requiredOption('--period <period>', 'reporting period, e.g. 202604')
    .option('--no-wait', 'request it and return without waiting')
    .option('--status', 'only show the current status and outcomes; request nothing')
    .action(async (options: { period: string; wait: boolean; status?: boolean }, command: Command) => {
      const context = await Context.of(command)
      const client = context.client()
      const reportingPeriod = period(options.period)
      const jurisdiction = context.jurisdiction
      let status: AssessmentStatus
      let outcomes: GroupedResults<AssessmentResult> = { blocking: [], nonBlocking: [] }
      if (options.wait && !options.status) {
        const assessed = await client.assess(jurisdiction, reportingPeriod, {
          onProgress: (e) => {
            if (e.phase === 'assess' && PENDING.includes(e.status)) context.output.warn(`  ${e.status}...`)
          },
        })
        status = assessed.assessment
        outcomes = assessed
      } else {
        if (!options.status) {
          try {
            await client.requestAssessment(jurisdiction, reportingPeriod)
          } catch (error) {
            if (!(error instanceof ServiceError && error.reason === ConflictReason.AssessmentInProgress)) throw error
            context.output.warn('An assessment is already running.')
          }
        }
        status = await client.assessmentStatus(jurisdiction, reportingPeriod)
        if (status.completedAt) outcomes = await client.groupedAssessmentResults(jurisdiction, reportingPeriod)
      }
      const { blocking, nonBlocking } = outcomes
      const results = [...blocking, ...nonBlocking].flatMap((group) => group.results)
      context.output.result({ status, results }, () => {
        context.output.say(`Data quality assessment of ${jurisdiction} ${reportingPeriod}: ${status.assessmentStatus}`)
        for (const message of status.messages) context.output.say(`  ${message}`)
        if (status.completedAt) printAssessmentResults(context.output, blocking, nonBlocking)
        if (status.assessmentStatus === 'Validated' && blocking.length === 0)
          context.output.say(`Ready to declare: \`vetrs declare --period ${reportingPeriod} --name ... --email ...\``)
      })
      if (blocking.length > 0) process.exitCode = ExitCode.validationFailures
      else if (status.assessmentStatus === 'Fault') process.exitCode = ExitCode.serviceError
    })

  program
    .command('declare')
    .description(
      'declare a reporting period (or report nil activity); needs a Validated assessment without blocking outcomes',
    )
    .requiredOption('--period <period>', 'reporting period, e.g. 202604')
    .requiredOption('--name <name>', 'RTOUserName: the authorised person declaring (at most 80 characters)')
    .requiredOption('--email <email>', 'RTOUserEmailAddress')
    .option('--nil', 'a nil activity report instead of a declaration')
    .option('--last-activity <date>', 'with --nil: dateOfLastReportableActivity, YYYY-MM-DD, before the period starts')
    .option('--accept', 'the RTO accepts the declaration (RTOAcceptanceOfDeclaration); required')
    .action(
      async (
        options: {
          period: string
          name: string
          email: string
          nil?: boolean
          lastActivity?: string
          accept?: boolean
        },
        command: Command,
      ) => {
        const context = await Context.of(command)
        if (!options.accept) throw new UsageError('declaring needs --accept: the RTO accepts the declaration')
        if (options.nil && !options.lastActivity) throw new UsageError('--nil needs --last-activity <YYYY-MM-DD>')
        const saved = await context.client().declare({
          reportingPeriodNumber: period(options.period),
          jurisdiction: context.jurisdiction,
          declarationType: options.nil ? 'Nil_activity_report' : 'Declaration',
          RTOAcceptanceOfDeclaration: true,
          RTOUserName: options.name,
          RTOUserEmailAddress: options.email,
          ...(options.nil ? { dateOfLastReportableActivity: options.lastActivity } : {}),
        })
        context.output.result(saved, () => context.output.say(saved.message))
      },
    )
}
