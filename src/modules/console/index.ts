// The web console: the service's pages for the people who fix, sign and run the collection (RTO staff,
// the RTO's authorised person, the collector's operators), signed in with OpenID Connect, on the same
// use cases as the API through the other modules' index files. Other code reaches it only here.
export { consoleRoutes, CONSOLE_PREFIX, type ConsoleRouteOptions } from './console.routes.ts'
export { DEMO_PEOPLE, DEMO_PASSWORD, type DemoPerson } from './demo-people.ts'
