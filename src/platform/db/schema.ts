// The database type Kysely checks queries against. Each module adds its own tables to this interface
// by declaration merging (`declare module '.../schema.ts' { interface Database { ... } }`), so the
// platform never has to know the modules that sit on it.
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging needs an interface, and the modules fill it
export interface Database {}
