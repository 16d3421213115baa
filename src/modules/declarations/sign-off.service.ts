// The authorised person's sign-off (issue 32, item 4): before declaring, each warning rule of the
// period's latest completed assessment is acknowledged, with an optional explanation kept with the
// declaration that relies on that assessment; a declaration made this way is refused while a warning
// rule is left, and one that would replace the current declaration is refused unless it names it.
// The API's declaration (spec: fixed body) is unchanged: this is the console's way to declare.
// Decisions: docs/decisions.md, "A sign-off worth signing (item 4)".
import type { Db } from '../../platform/db/database.ts'
import type { Jurisdiction } from '../../domain/jurisdictions.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { firstDayOf, lastDayOf, utcToday } from '../../domain/reporting-period.ts'
import { latestCompletedAssessment, periodRefOf, resultsByRuleOfRun } from '../assessment/index.ts'
import { declareChecked } from './declarations.service.ts'
import type { DeclarationRequest, DeclarationSaved } from './declarations.schemas.ts'
import * as repo from './declarations.repo.ts'
import * as acknowledgements from './warning-acknowledgements.repo.ts'

/** The longest explanation kept with an acknowledgement. */
export const MAX_EXPLANATION = 2000

export interface WarningAcknowledgement {
  technicalRuleId: string
  /** The number of outcomes of the rule when it was acknowledged. */
  outcomeCount: number
  explanation: string
  acknowledgedByName: string
  acknowledgedAt: string
}

/** Why a sign-off step was refused, in a person's words (the console shows it; not an API problem). */
export class SignOffRefusal extends Error {
  readonly kind:
    | 'assessment-changed'
    | 'not-a-warning-rule'
    | 'declared-already'
    | 'warnings-not-acknowledged'
    | 'replacement-not-confirmed'
  constructor(kind: SignOffRefusal['kind'], message: string) {
    super(message)
    this.kind = kind
  }
}

const toAcknowledgement = (row: acknowledgements.WarningAcknowledgementRow): WarningAcknowledgement => ({
  technicalRuleId: row.technical_rule_id,
  outcomeCount: row.outcome_count,
  explanation: row.explanation,
  acknowledgedByName: row.acknowledged_by_name,
  acknowledgedAt: new Date(row.acknowledged_at).toISOString(),
})

export interface PeriodOf {
  jurisdiction: Jurisdiction
  period: number
}

/** The acknowledgements of an assessment run, and whether a declaration already relies on it. */
export async function acknowledgementsOfRun(
  db: Db,
  actor: Actor,
  runId: string,
): Promise<{ acknowledgements: WarningAcknowledgement[]; declared: boolean }> {
  const [rows, declared] = await Promise.all([
    acknowledgements.ofRuns(db, actor.rto, [runId]),
    acknowledgements.isDeclaredOn(db, actor.rto, runId),
  ])
  return { acknowledgements: rows.map(toAcknowledgement), declared }
}

/**
 * Acknowledges one warning rule of the period's latest completed assessment, which must be the run
 * the person reviewed (`runId`, from the page they read): a newer assessment is reviewed afresh.
 */
export async function acknowledgeWarning(
  db: Db,
  actor: Actor,
  input: PeriodOf & { runId: string; technicalRuleId: string; explanation: string; name: string },
): Promise<void> {
  const params = { jurisdiction: input.jurisdiction, ReportingPeriodNumber: String(input.period) }
  const run = await latestCompletedAssessment(db, actor, params)
  if (!run || run.runId !== input.runId)
    throw new SignOffRefusal(
      'assessment-changed',
      'The assessment was run again since this page was shown: review the warnings of its latest run.',
    )
  const rule = run.rules.find(
    (r) => r.technicalRuleId === input.technicalRuleId && r.AssessmentMessageLevel === 'Warning',
  )
  if (!rule)
    throw new SignOffRefusal('not-a-warning-rule', `Rule ${input.technicalRuleId} is not a warning of this assessment.`)
  if (await acknowledgements.isDeclaredOn(db, actor.rto, run.runId))
    throw new SignOffRefusal(
      'declared-already',
      'A declaration already relies on this assessment: its acknowledgements are kept as they were made.',
    )
  await acknowledgements.upsert(db, {
    rto_id: actor.rto,
    assessment_run_id: run.runId,
    technical_rule_id: rule.technicalRuleId,
    jurisdiction: input.jurisdiction,
    reporting_period: input.period,
    outcome_count: rule.numberOfResults,
    explanation: input.explanation.slice(0, MAX_EXPLANATION),
    acknowledged_by_name: input.name,
    acknowledged_by_client: actor.clientId,
  })
}

/**
 * Declares as the API does (the same checks and refusals), and further, in the declaration's
 * transaction: every warning rule of the assessment it relies on is acknowledged, and a current
 * declaration of the period is replaced only when `replaces` names it (the person confirmed it).
 */
export async function declareAfterReview(
  db: Db,
  actor: Actor,
  body: DeclarationRequest,
  replaces: string | undefined,
): Promise<DeclarationSaved> {
  return declareChecked(db, actor, body, async (tx, run) => {
    const warnings = (await resultsByRuleOfRun(tx, run)).filter((r) => r.AssessmentMessageLevel === 'Warning')
    const acknowledged = new Set(
      (await acknowledgements.ofRuns(tx, actor.rto, [run.run_id])).map((row) => row.technical_rule_id),
    )
    const left = warnings.filter((r) => !acknowledged.has(r.technicalRuleId))
    if (left.length > 0)
      throw new SignOffRefusal(
        'warnings-not-acknowledged',
        `Not declared: ${left.length} warning ${left.length === 1 ? 'rule is' : 'rules are'} not acknowledged yet (${left
          .map((r) => r.technicalRuleId)
          .join(', ')}). Review and acknowledge each, then declare.`,
      )
    const [current] = await repo.declarationsOf(
      tx,
      actor.rto,
      [Number(body.reportingPeriodNumber)],
      body.jurisdiction,
      false,
    )
    if (current && current.declaration_id !== replaces)
      throw new SignOffRefusal(
        'replacement-not-confirmed',
        `Not declared: a declaration of ${body.jurisdiction} ${body.reportingPeriodNumber} was made on ${new Date(current.declared_at).toISOString().slice(0, 10)} by ${current.rto_user_name}. Confirm that this one replaces it, then declare.`,
      )
  })
}

/** The current declaration of a period, if any: what a new one would replace. */
export async function currentDeclarationOf(db: Db, actor: Actor, of: PeriodOf) {
  const [row] = await repo.declarationsOf(db, actor.rto, [of.period], of.jurisdiction, false)
  return row
    ? {
        declarationId: row.declaration_id,
        declarationType: row.declaration_type,
        declaredAt: new Date(row.declared_at).toISOString(),
        RTOUserName: row.rto_user_name,
      }
    : undefined
}

/** The activity held for the period, by type: what the declaration covers. */
export async function periodActivity(db: Db, actor: Actor, of: PeriodOf): Promise<repo.PeriodActivity> {
  const ref = periodRefOf(actor, { jurisdiction: of.jurisdiction, ReportingPeriodNumber: String(of.period) })
  const periodStart = firstDayOf(ref.period)
  const periodEnd = lastDayOf(ref.period)
  const today = utcToday()
  return repo.activityInPeriod(db, { ...ref, periodStart, periodEnd, asAt: today < periodEnd ? today : periodEnd })
}

/** The acknowledgements kept with each of the RTO's declarations (those of the run it relied on). */
export async function acknowledgementsOfDeclarations(
  db: Db,
  actor: Actor,
  declarationIds: readonly string[],
): Promise<Map<string, WarningAcknowledgement[]>> {
  const runs = await acknowledgements.runsOfDeclarations(db, actor.rto, declarationIds)
  const rows = await acknowledgements.ofRuns(db, actor.rto, [...new Set(runs.values())])
  const kept = new Map<string, WarningAcknowledgement[]>()
  for (const [declarationId, runId] of runs)
    kept.set(declarationId, rows.filter((row) => row.assessment_run_id === runId).map(toAcknowledgement))
  return kept
}

/** How far the review of the period's latest completed assessment went: its warning rules, and how many are acknowledged. */
export async function warningReviewOf(
  db: Db,
  actor: Actor,
  of: PeriodOf,
): Promise<{ warnings: number; acknowledged: number } | undefined> {
  const run = await latestCompletedAssessment(db, actor, {
    jurisdiction: of.jurisdiction,
    ReportingPeriodNumber: String(of.period),
  })
  if (!run) return undefined
  const warnings = new Set(
    run.rules.filter((r) => r.AssessmentMessageLevel === 'Warning').map((r) => r.technicalRuleId),
  )
  const rows = await acknowledgements.ofRuns(db, actor.rto, [run.runId])
  return { warnings: warnings.size, acknowledged: rows.filter((row) => warnings.has(row.technical_rule_id)).length }
}
