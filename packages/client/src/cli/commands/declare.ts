// vetrs assess|declare: standard workflow 4 a step at a time.
import type { Command } from 'commander'
import { ServiceError, UsageError } from '../../errors.ts'
import { collect } from '../../paging.ts'
import { groupBy } from '../../workflows/submit.ts'
import { pollUntil } from '../../workflows/progress.ts'
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
      if (!options.status) {
        try {
          await client.requestAssessment(jurisdiction, reportingPeriod)
        } catch (error) {
          if (!(error instanceof ServiceError && error.reason === 'assessment-in-progress')) throw error
          context.output.warn('An assessment is already running; waiting for it.')
        }
      }
      let status = await client.assessmentStatus(jurisdiction, reportingPeriod)
      if (options.wait && !options.status) {
        status = await pollUntil(
          () => client.assessmentStatus(jurisdiction, reportingPeriod),
          (s) => !PENDING.includes(s.assessmentStatus),
          {
            onValue: (s) => {
              if (PENDING.includes(s.assessmentStatus)) context.output.warn(`  ${s.assessmentStatus}...`)
            },
          },
        )
      }
      const results = status.completedAt ? await collect(client.assessmentResults(jurisdiction, reportingPeriod)) : []
      const blocking = groupBy(
        results.filter((r) => r.AssessmentMessageLevel === 'Error'),
        (r) => r.AssessmentGroupingId,
      )
      const nonBlocking = groupBy(
        results.filter((r) => r.AssessmentMessageLevel !== 'Error'),
        (r) => r.AssessmentGroupingId,
      )
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
