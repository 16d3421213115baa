// The jurisdictions data is reported for, in the spec's order: national first, then the states and
// territories.
export const jurisdictions = ['NAT', 'NSW', 'VIC', 'QLD', 'WA', 'SA', 'TAS', 'ACT', 'NT'] as const
export type Jurisdiction = (typeof jurisdictions)[number]
