// A stored declaration as the API shows it: its row with the due date of its type and whether it was late.
import { isLate } from './due-dates.ts'
import type { DueDates } from './calendar.service.ts'
import type * as repo from './declarations.repo.ts'
import type { DeclarationRecord } from './declarations.schemas.ts'

export function toRecord(row: repo.DeclarationRow, dueDates: DueDates): DeclarationRecord {
  const declaredAt = new Date(row.declared_at)
  const type = row.declaration_type
  const { dueDate } = dueDates.of(row.rto_id, row.jurisdiction, row.reporting_period, type)
  return {
    declarationId: row.declaration_id,
    reportingPeriodNumber: row.reporting_period,
    jurisdiction: row.jurisdiction as DeclarationRecord['jurisdiction'],
    declarationType: type,
    dateOfLastReportableActivity: row.date_of_last_reportable_activity,
    RTOAcceptanceOfDeclaration: true,
    RTOUserName: row.rto_user_name,
    RTOUserEmailAddress: row.rto_user_email_address,
    declaredAt: declaredAt.toISOString(),
    declaredByClient: row.declared_by_client,
    declarationDueDate: dueDate,
    isLate: isLate(declaredAt.toISOString().slice(0, 10), dueDate),
    isCurrent: row.is_current,
  }
}
