// Declarations (spec: Declaration; States and transitions, Declarations; Endpoints, Declarations;
// Errors, Declaration rejections). A declaration is accepted only when the period's data quality
// assessment is Validated without blocking outcomes; the latest one supersedes earlier ones, and it
// locks nothing. Decisions: docs/decisions.md, Declarations.
import { randomUUID } from 'node:crypto'
import type { Db, Executor } from '../../platform/db/database.ts'
import type { Actor } from '../../platform/auth/scopes.ts'
import { ConflictError, StructuralError, type FieldError } from '../../domain/errors.ts'
import { toPage, type Page } from '../../domain/page.ts'
import { jurisdictions as jurisdictionsInSpecOrder } from '../../domain/jurisdictions.ts'
import { declarationReadiness, type PeriodRef } from '../assessment/index.ts'
import { jurisdictionsSubmittedUnder } from '../holdings/index.ts'
import { recordEvent } from '../events/index.ts'
import {
  FIRST_REPORTING_PERIOD,
  firstDayOf,
  lastDayOf,
  nextPeriodOf,
  reportingPeriodOf,
  unsupportedPeriodReason,
  utcToday,
} from '../../domain/reporting-period.ts'
import type { DeclarationType } from './due-dates.ts'
import { dueDatesFor } from './calendar.service.ts'
import * as repo from './declarations.repo.ts'
import { toRecord } from './declaration-record.ts'
import {
  declarationTypes,
  type DeclarationQuery,
  type DeclarationRecord,
  type DeclarationRequest,
  type DeclarationSaved,
  type PeriodDeclarationRequest,
} from './declarations.schemas.ts'

const MAX_PERIODS = 10

/** POST /declaration: the body names the period and jurisdiction. */
export async function declare(db: Db, actor: Actor, body: DeclarationRequest): Promise<DeclarationSaved> {
  return save(db, actor, body, String(body.reportingPeriodNumber), body.jurisdiction, [])
}

/**
 * A further condition of a declaration, checked in its transaction once the assessment's readiness
 * holds (the period's lock taken): it throws to refuse. The console's sign-off gives one
 * (sign-off.service.ts: every warning acknowledged, a supersession confirmed).
 */
export type DeclarationCheck = (
  tx: Executor,
  run: { rto_id: string; run_id: string; attempt: number; results_by_rule: unknown },
) => Promise<void>

/** As declare, with a further check in its transaction. */
export async function declareChecked(
  db: Db,
  actor: Actor,
  body: DeclarationRequest,
  check: DeclarationCheck,
): Promise<DeclarationSaved> {
  return save(db, actor, body, String(body.reportingPeriodNumber), body.jurisdiction, [], undefined, check)
}

/** POST /reporting-period/{jurisdiction}/{ReportingPeriodNumber}/declaration: the path names them; the body may repeat them. */
export async function declareForPeriod(
  db: Db,
  actor: Actor,
  path: { jurisdiction: string; ReportingPeriodNumber: string },
  body: PeriodDeclarationRequest,
): Promise<DeclarationSaved> {
  const errors: FieldError[] = []
  if (body.reportingPeriodNumber !== undefined && String(body.reportingPeriodNumber) !== path.ReportingPeriodNumber) {
    errors.push({
      accessPath: '$.reportingPeriodNumber',
      message: `must match the path's reporting period ${path.ReportingPeriodNumber} (or be left out)`,
    })
  }
  if (body.jurisdiction !== undefined && body.jurisdiction !== path.jurisdiction) {
    errors.push({
      accessPath: '$.jurisdiction',
      message: `must match the path's jurisdiction ${path.jurisdiction} (or be left out)`,
    })
  }
  return save(db, actor, body, path.ReportingPeriodNumber, path.jurisdiction, errors, 'path.ReportingPeriodNumber')
}

async function save(
  db: Db,
  actor: Actor,
  body: PeriodDeclarationRequest,
  periodCode: string,
  jurisdiction: string,
  errors: FieldError[],
  periodPath = '$.reportingPeriodNumber',
  check?: DeclarationCheck,
): Promise<DeclarationSaved> {
  const periodProblem = unsupportedPeriodReason(periodCode)
  if (periodProblem) errors.push({ accessPath: periodPath, message: periodProblem })
  const period = Number(periodCode)
  if (body.RTOAcceptanceOfDeclaration !== true)
    errors.push({
      accessPath: '$.RTOAcceptanceOfDeclaration',
      message: 'must be true: the RTO accepts the declaration',
    })
  const lastActivity = body.dateOfLastReportableActivity ?? undefined
  if (body.declarationType === 'Nil_activity_report') {
    if (lastActivity === undefined)
      errors.push({ accessPath: '$.dateOfLastReportableActivity', message: 'is required for a Nil_activity_report' })
    else if (!periodProblem && lastActivity >= firstDayOf(period)) {
      errors.push({
        accessPath: '$.dateOfLastReportableActivity',
        message: `must be earlier than ${firstDayOf(period)}, the first day of reporting period ${period}`,
      })
    }
  } else if (lastActivity !== undefined) {
    errors.push({
      accessPath: '$.dateOfLastReportableActivity',
      message: 'is given only with declarationType Nil_activity_report',
    })
  }
  if (errors.length > 0) throw new StructuralError(errors)

  const ref: PeriodRef = { rto: actor.rto, jurisdiction, period }
  const row = await db.transaction().execute(async (tx) => {
    const readiness = await declarationReadiness(tx, ref) // holds the period's lock against assessment requests
    if ('refusal' in readiness) throw readiness.refusal
    if (check) await check(tx, readiness.run)
    if (body.declarationType === 'Nil_activity_report') await refuseNilWithActivity(tx, ref)
    const { saved, superseded } = await repo.insertCurrent(tx, {
      rto_id: actor.rto,
      declaration_id: randomUUID(),
      jurisdiction,
      reporting_period: period,
      declaration_type: body.declarationType,
      date_of_last_reportable_activity: lastActivity ?? null,
      rto_user_name: body.RTOUserName,
      rto_user_email_address: body.RTOUserEmailAddress,
      declared_by_client: actor.clientId,
      assessment_run_id: readiness.run.run_id,
    })
    // The events last: the RTO's event number is locked from here until the commit. Identifiers and
    // the type only: the person's name and e-mail address stay out of events.
    const subject = `reporting-period/${jurisdiction}/${period}/declaration`
    const told = { rto: actor.rto, subject, jurisdiction, period }
    for (const declarationId of superseded)
      await recordEvent(tx, {
        ...told,
        type: 'au.gov.vetrs.declaration.superseded',
        data: { declarationId, supersededBy: saved.declaration_id },
      })
    await recordEvent(tx, {
      ...told,
      type: 'au.gov.vetrs.declaration.made',
      data: {
        declarationId: saved.declaration_id,
        declarationType: saved.declaration_type,
        declaredAt: new Date(saved.declared_at).toISOString(),
        supersedes: superseded,
        assessmentRunId: saved.assessment_run_id,
        clientId: actor.clientId,
      },
    })
    return saved
  })
  const dueDates = await dueDatesFor(db, [period], { rto: actor.rto, jurisdiction })
  const declaration = toRecord({ ...row, date_of_last_reportable_activity: lastActivity ?? null }, dueDates)
  const kind = declaration.declarationType === 'Declaration' ? 'Declaration' : 'Nil activity report'
  const byRule = dueDates.of(actor.rto, jurisdiction, period, declaration.declarationType).source === 'rule'
  const late = declaration.isLate
    ? ` It was made after its due date (${declaration.declarationDueDate})${byRule ? ', more than one month after the reporting period ended' : ''}; the RTO may be contacted for a reason for late reporting.`
    : ''
  return {
    message: `${kind} saved for reporting period ${period} and jurisdiction ${jurisdiction}.${late}`,
    declaration,
  }
}

const NAMED_ACTIVITY = 5

/**
 * A nil activity report says the RTO had no reportable activity in the period. Held enrolments with
 * activity in it make that untrue: 409 reportable-activity-held, naming them. Checked in the
 * declaration's transaction, after readiness: a Validated assessment means nothing was submitted for
 * the period since it began, so this is the data the assessment saw. Decisions: docs/decisions.md,
 * Declarations, Refusals.
 */
async function refuseNilWithActivity(tx: Executor, ref: PeriodRef): Promise<void> {
  const periodStart = firstDayOf(ref.period)
  const periodEnd = lastDayOf(ref.period)
  const today = utcToday()
  const held = await repo.heldActivityInPeriod(
    tx,
    { ...ref, periodStart, periodEnd, asAt: today < periodEnd ? today : periodEnd },
    NAMED_ACTIVITY,
  )
  if (held.length === 0) return
  const total = held[0]!.total
  const named = held.map((row) => {
    const when = row.first_state_date
      ? `a lifecycle state dated ${row.first_state_date}`
      : `training from ${row.activity_start_date} to ${row.activity_end_date}`
    return `${row.resource_type} ${row.resource_uid} (${when})`
  })
  const more = total > named.length ? `, and ${total - named.length} more` : ''
  throw new ConflictError(
    'reportable-activity-held',
    `A Nil_activity_report says there was no reportable activity in ${ref.jurisdiction} ${ref.period} (${periodStart} to ${periodEnd}), but ${total} enrolment(s) with activity in it are held: ${named.join('; ')}${more}. ` +
      'Make a Declaration for the period instead, or, if that activity was reported in error, void it (or correct its dates), submit, assess again, then report nil activity.',
  )
}

/** The reporting periods a listing asks for, checked (spec: GET declaration query parameters). */
function periodsOf(query: DeclarationQuery, today: string): number[] {
  const errors: FieldError[] = []
  const hasRange = query.startDate !== undefined || query.endDate !== undefined
  if (query.reportingPeriodNumber !== undefined && hasRange) {
    errors.push({
      accessPath: 'query.reportingPeriodNumber',
      message: 'give either reportingPeriodNumber or startDate and endDate, not both',
    })
  } else if (query.reportingPeriodNumber !== undefined) {
    const codes = query.reportingPeriodNumber
    if (codes.length > MAX_PERIODS)
      errors.push({
        accessPath: 'query.reportingPeriodNumber',
        message: `must hold 1 to ${MAX_PERIODS} reporting periods (got ${codes.length})`,
      })
    codes.forEach((code, i) => {
      const reason = unsupportedPeriodReason(code, today)
      if (reason) errors.push({ accessPath: `query.reportingPeriodNumber[${i}]`, message: reason })
    })
    if (new Set(codes).size !== codes.length)
      errors.push({ accessPath: 'query.reportingPeriodNumber', message: 'must not repeat a reporting period' })
    if (errors.length === 0) return codes.map(Number)
  } else if (hasRange) {
    const first = firstDayOf(FIRST_REPORTING_PERIOD)
    for (const [name, value] of [
      ['startDate', query.startDate],
      ['endDate', query.endDate],
    ] as const) {
      if (value === undefined)
        errors.push({
          accessPath: `query.${name}`,
          message: `is required with ${name === 'startDate' ? 'endDate' : 'startDate'}`,
        })
      else if (value < first)
        errors.push({
          accessPath: `query.${name}`,
          message: `must be on or after ${first} (reporting period ${FIRST_REPORTING_PERIOD})`,
        })
      else if (value > today)
        errors.push({ accessPath: `query.${name}`, message: `must not be later than today (${today})` })
    }
    if (errors.length === 0 && query.startDate! > query.endDate!)
      errors.push({ accessPath: 'query.endDate', message: `must not be before startDate (${query.startDate})` })
    if (errors.length === 0) {
      const periods: number[] = []
      for (let p = reportingPeriodOf(query.startDate!); p <= reportingPeriodOf(query.endDate!); p = nextPeriodOf(p))
        periods.push(p)
      return periods
    }
  } else {
    errors.push({
      accessPath: 'query.reportingPeriodNumber',
      message: 'give reportingPeriodNumber (1 to 10 periods) or startDate and endDate',
    })
  }
  throw new StructuralError(errors)
}

function typesOf(query: DeclarationQuery): DeclarationType[] {
  if (query.declarationTypes === undefined) return [...declarationTypes]
  return [...new Set(query.declarationTypes)] // each value is one of declarationTypes (the query schema)
}

/** GET /declaration: a row per period and jurisdiction, the declaration or null with its due date. */
export async function listDeclarations(
  db: Db,
  actor: Actor,
  query: DeclarationQuery,
): Promise<
  Page<{
    reportingPeriodNumber: number
    jurisdiction: DeclarationRecord['jurisdiction']
    declarationDueDate: string
    declaration: DeclarationRecord | null
  }>
> {
  const today = utcToday()
  const periods = periodsOf(query, today)
  const types = typesOf(query)
  const undeclaredType: DeclarationType = types.length === 1 ? types[0]! : 'Declaration'
  const jurisdictions = query.jurisdiction
    ? [query.jurisdiction]
    : sortJurisdictions(await knownJurisdictions(db, actor.rto))
  const [declarations, dueDates] = await Promise.all([
    repo.declarationsOf(db, actor.rto, periods, query.jurisdiction, query.includeSuperseded),
    dueDatesFor(db, periods, { rto: actor.rto, jurisdiction: query.jurisdiction }),
  ])
  const dueDateOf = (jurisdiction: string, period: number, type: DeclarationType) =>
    dueDates.of(actor.rto, jurisdiction, period, type).dueDate
  const direction = query.sortOrder === 'Asc' ? 1 : -1
  const rows = []
  for (const period of [...periods].sort((a, b) => (a - b) * direction)) {
    for (const jurisdiction of jurisdictions) {
      const found = declarations.filter((d) => d.reporting_period === period && d.jurisdiction === jurisdiction)
      const base = { reportingPeriodNumber: period, jurisdiction: jurisdiction as DeclarationRecord['jurisdiction'] }
      if (found.length === 0) {
        rows.push({ ...base, declarationDueDate: dueDateOf(jurisdiction, period, undeclaredType), declaration: null })
        continue
      }
      for (const row of found) {
        if (!types.includes(row.declaration_type)) continue
        rows.push({
          ...base,
          declarationDueDate: dueDateOf(jurisdiction, period, row.declaration_type),
          declaration: toRecord(row, dueDates),
        })
      }
    }
  }
  const page = { pageNumber: query.pageNumber, pageSize: query.pageSize }
  const start = (page.pageNumber - 1) * page.pageSize
  return toPage(rows.slice(start, start + page.pageSize), rows.length, page)
}

/** One jurisdiction and period of an RTO: its current declaration, and the due date with the date an extension replaced. */
export interface DeclarationOfPeriod {
  declaration: DeclarationRecord | null
  declarationDueDate: string
  /** The due date the RTO's extension replaced (YYYY-MM-DD); undefined when there is no extension. */
  extendedFrom: string | undefined
}

/**
 * An RTO's periods as its home page reads them, in one set of reads: the rows GET /declaration
 * answers for these periods without a jurisdiction (current declarations, newest period first, every
 * jurisdiction the RTO submitted under or declared for), and `of` for any jurisdiction and period of
 * the read (the task list's, which may be a jurisdiction with no row), with what an extension replaced.
 */
export async function declarationsOfRto(
  db: Db,
  actor: Actor,
  periods: readonly number[],
): Promise<{
  rows: {
    reportingPeriodNumber: number
    jurisdiction: DeclarationRecord['jurisdiction']
    declarationDueDate: string
    declaration: DeclarationRecord | null
  }[]
  of(jurisdiction: string, period: number): DeclarationOfPeriod
}> {
  const [jurisdictions, declarations, dueDates] = await Promise.all([
    knownJurisdictions(db, actor.rto).then(sortJurisdictions),
    repo.declarationsOf(db, actor.rto, [...periods], undefined, false),
    dueDatesFor(db, [...periods], { rto: actor.rto }),
  ])
  const of = (jurisdiction: string, period: number): DeclarationOfPeriod => {
    // As listDeclarations: the first current declaration of the period, else none with a Declaration's due date.
    const row = declarations.find((d) => d.reporting_period === period && d.jurisdiction === jurisdiction)
    const type = row?.declaration_type ?? 'Declaration'
    const due = dueDates.of(actor.rto, jurisdiction, period, type)
    return {
      declaration: row ? toRecord(row, dueDates) : null,
      declarationDueDate: due.dueDate,
      // No RTO has the empty code: what applies without any extension (as dueDateOf).
      extendedFrom: due.source === 'extension' ? dueDates.of('', jurisdiction, period, type).dueDate : undefined,
    }
  }
  const rows = []
  for (const period of [...periods].sort((a, b) => b - a))
    for (const jurisdiction of jurisdictions) {
      const base = { reportingPeriodNumber: period, jurisdiction: jurisdiction as DeclarationRecord['jurisdiction'] }
      const found = declarations.filter((d) => d.reporting_period === period && d.jurisdiction === jurisdiction)
      if (found.length === 0) rows.push({ ...base, ...pick(of(jurisdiction, period)) })
      for (const row of found)
        rows.push({
          ...base,
          declarationDueDate: dueDates.of(actor.rto, jurisdiction, period, row.declaration_type).dueDate,
          declaration: toRecord(row, dueDates),
        })
    }
  return { rows, of }
}

const pick = ({ declaration, declarationDueDate }: DeclarationOfPeriod) => ({ declaration, declarationDueDate })

/** The jurisdictions the RTO has submitted data under or declared for: the rows of a listing without a jurisdiction filter. */
async function knownJurisdictions(db: Db, rto: string): Promise<string[]> {
  const [submitted, declared] = await Promise.all([
    jurisdictionsSubmittedUnder(db, rto),
    repo.declaredJurisdictions(db, rto),
  ])
  return [...new Set([...submitted, ...declared])]
}

/** Jurisdictions in the spec's order (NAT first, then the states and territories). */
function sortJurisdictions(values: string[]): string[] {
  return [...jurisdictionsInSpecOrder].filter((j) => values.includes(j))
}
