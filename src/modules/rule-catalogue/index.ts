// The business-rule catalogue: batch validation rules and data quality assessment rules published
// together, served over HTTP and written to docs/business-rules.md.
export { ruleCatalogueRoutes } from './rule-catalogue.routes.ts'
export { catalogue, catalogueMarkdown, type CatalogueEntry } from './rule-catalogue.service.ts'
