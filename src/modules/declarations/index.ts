export { declarationRoutes } from './declarations.routes.ts'
export { declarationDueDate, isLate } from './due-dates.ts'
