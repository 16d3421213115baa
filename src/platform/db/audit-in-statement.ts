// The audit entry of a change as a part of the change's own statement (issue 30: one statement fewer per
// Student upload). modules/audit makes it from the request's entry (auditInStatement); the HTTP layer's
// audit hook hands it to the route; the repository that writes the change splices it into its statement,
// so the change and its entry commit together. The platform knows neither module: this is the shape.
import type { RawBuilder } from 'kysely'

/**
 * Given the statement's SQL expression for the HTTP status its change answers (NULL when it changed
 * nothing: then nothing is written, and the refusal is audited after the answer as before), an SQL
 * expression that appends the entry to its day's chain with that status, as a success.
 */
export type AuditInStatement = (status: RawBuilder<number | null>) => RawBuilder<unknown>
