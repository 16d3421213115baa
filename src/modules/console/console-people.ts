// Who is signed in to the console, what their role lets them do, and the actor the other modules'
// use cases see for them: a console user sees exactly what the RTO's API clients see.
import type { Actor } from '../../platform/auth/scopes.ts'
import { Scopes } from '../../platform/auth/scopes.ts'

export const CONSOLE_ROLES = ['rto-staff', 'authorised-person', 'operator'] as const
export type ConsoleRole = (typeof CONSOLE_ROLES)[number]

export function isConsoleRole(value: unknown): value is ConsoleRole {
  return typeof value === 'string' && (CONSOLE_ROLES as readonly string[]).includes(value)
}

/** The signed-in person, as kept in the session (from the identity provider's claims). */
export interface ConsoleUser {
  subject: string
  name: string
  email: string | undefined
  role: ConsoleRole
  /** The RTO an RTO staff member or authorised person acts for; undefined for an operator. */
  rto: string | undefined
}

export const ROLE_LABELS: Record<ConsoleRole, string> = {
  'rto-staff': 'RTO staff',
  'authorised-person': 'Authorised person',
  operator: 'Operator',
}

/** Reads, uploads, validates and submits for its RTO (RTO staff and authorised person). */
export const canReport = (user: ConsoleUser) => user.role !== 'operator'
/** Signs the RTO's declarations (authorised person only). */
export const canDeclare = (user: ConsoleUser) => user.role === 'authorised-person'

/**
 * Whether the user may see this RTO's pages: its own RTO for RTO people, every RTO (read-only) for an
 * operator. Anything else is answered 404, as the API answers another RTO's batch.
 */
export function maySeeRto(user: ConsoleUser, rto: string): boolean {
  return user.role === 'operator' || user.rto === rto
}

/**
 * The actor the use cases see: the RTO, and scopes by role. The client id names the person
 * (`console:<subject>`), so whatever the use cases record as made by a client (a validation request,
 * a submission, a declaration) shows it came from the console and who.
 */
export function actorFor(user: ConsoleUser, rto: string): Actor {
  const scopes: string[] =
    user.role === 'operator'
      ? [Scopes.read]
      : [Scopes.read, Scopes.report, ...(user.role === 'authorised-person' ? [Scopes.declare] : [])]
  return { clientId: `console:${user.subject}`.slice(0, 200), rto, scopes: new Set(scopes) }
}
