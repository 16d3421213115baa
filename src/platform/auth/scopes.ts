// Scopes a client can be granted; each route names the one it needs.
export const Scopes = {
  report: 'vet:report', // transaction batches, uploads, validation, submit, voids
  read: 'vet:read', // reconciliation and other read-only views of held data
  declare: 'vet:declare', // data quality assessments and declarations
  referenceData: 'vet:reference-data', // reference and classification data synchronisation
} as const

export type Scope = (typeof Scopes)[keyof typeof Scopes]
export const ALL_SCOPES: readonly Scope[] = Object.values(Scopes)

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value)
}

/** Who is calling: the authenticated client and the RTO it acts for. Every query is scoped by rto. */
export interface Actor {
  clientId: string
  rto: string
  scopes: ReadonlySet<string>
}
